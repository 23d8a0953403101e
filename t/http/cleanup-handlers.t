# psgix.cleanup: handlers pushed on psgix.cleanup.handlers run after the
# response has been sent, in order, with the env; one that dies is logged
# and does not stop the next one. Sequenced by events: the handler waits
# until the client says (with a file) it has the whole response.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(wait_for_file slurp);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/cleanup handler died: cleanup boom/);

my $dir = tempdir(CLEANUP => 1);
$ENV{KT_DIR} = $dir;
my $server = start_server(app => <<'APP');
use Time::HiRes ();
my $dir = $ENV{KT_DIR};
sub note_it { open my $fh, '>>', "$dir/cleanup" or die; print $fh "@_\n"; close $fh }
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    if ($p eq '/cleanup') {
        push @{ $env->{'psgix.cleanup.handlers'} },
            sub {
                my $deadline = Time::HiRes::time() + 5;
                Time::HiRes::sleep(0.005) until -e "$dir/client-has-it" or Time::HiRes::time() > $deadline;
                note_it(-e "$dir/client-has-it" ? 'first: after the response' : 'first: timed out, the client had nothing');
            },
            sub { die "cleanup boom\n" },
            sub { note_it("third: env $_[0]{PATH_INFO}") };
    }
    my $flags = join '', map { $env->{$_} ? 1 : 0 } 'psgix.cleanup', 'psgix.harakiri';
    my $kind = ref $env->{'psgix.cleanup.handlers'};
    [200, ['Content-Type' => 'text/plain'], ["$p $flags $kind"]];
}
APP

my $c = $server->connect;
syswrite $c, "GET /cleanup HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c, timeout => 10);
is $res && $res->{body}, '/cleanup 11 ARRAY', 'the response arrives; psgix.cleanup is advertised, the handler list is an array';
ok !-e "$dir/cleanup", 'no handler has finished yet';
open my $fh, '>', "$dir/client-has-it" or die;
close $fh;
syswrite $c, "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c, timeout => 10);
is $res && $res->{body}, '/next 11 ARRAY', 'the next request on the connection, served after the handlers';
is slurp("$dir/cleanup"), "first: after the response\nthird: env /cleanup\n",
    'the handlers ran after the response, in order, with the env; the one that died did not stop the next';
like $server->log, qr{GET /cleanup HTTP/1\.1: cleanup handler died: cleanup boom$}m, 'the dying handler is logged with the request line';
unlike $server->log, qr{exited with|worker failed}, 'no worker died';
done_testing;
