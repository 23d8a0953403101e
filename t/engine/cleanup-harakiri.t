# psgix.cleanup handlers run after the response is sent; psgix.harakiri
# makes the worker exit after its response and a new one takes over.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $dir = tempdir(CLEANUP => 1);
my $server = start_server(app => <<"APP");
sub {
    my \$env = shift;
    if (\$env->{PATH_INFO} eq '/cleanup') {
        push \@{ \$env->{'psgix.cleanup.handlers'} }, sub {
            # the client has its response by now: wait for its word
            my \$deadline = time + 20;
            select undef, undef, undef, 0.01 until -e '$dir/client-has-it' or time > \$deadline;
            open my \$fh, '>', '$dir/cleaned' or die; print \$fh -e '$dir/client-has-it' ? 'after' : 'timeout';
        };
    }
    \$env->{'psgix.harakiri.commit'} = 1 if \$env->{PATH_INFO} eq '/harakiri';
    [200, ['Content-Type' => 'text/plain'], ["\$\$ " . (\$env->{'psgix.cleanup'} ? 'c' : '-') . (\$env->{'psgix.harakiri'} ? 'h' : '-')]];
}
APP

my $c = $server->connect;
print $c "GET /cleanup HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c);
like $res->{body}, qr/^\d+ ch$/, 'psgix.cleanup and psgix.harakiri are advertised';
ok !-e "$dir/cleaned", 'the response arrived before the cleanup handler finished';
open my $fh, '>', "$dir/client-has-it" or die;
close $fh;
my $deadline = Time::HiRes::time() + 20;
Time::HiRes::sleep(0.01) until -e "$dir/cleaned" or Time::HiRes::time() > $deadline;
is do { local $/; open my $f, '<', "$dir/cleaned" or die; <$f> }, 'after', 'the cleanup handler ran after the response';

my ($pid) = $res->{body} =~ /^(\d+)/;
print $c "GET /harakiri HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c);
is $res->{status}, 200, 'the harakiri request is answered';
is $res->{headers}{connection}, 'close', 'with Connection: close, the worker is leaving';
my $new;
$deadline = Time::HiRes::time() + 20;
until (($new // $pid) != $pid || Time::HiRes::time() > $deadline) {
    my $c2 = $server->connect;
    print $c2 "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    ($new) = (read_response($c2)->{body} // '') =~ /^(\d+)/;
}
isnt $new, $pid, 'a new worker serves after harakiri';
done_testing;
