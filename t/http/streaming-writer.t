# The streaming writer sends each write as it is made, not when the app
# returns: the app writes "first", then waits until the client has it (the
# client creates a file when it does), then writes "second". An app that
# forgets close() still gets a properly ended body.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(parse_response);

my $dir = tempdir(CLEANUP => 1);
$ENV{KT_DIR} = $dir;
my $server = start_server(app => <<'APP');
use Time::HiRes ();
my $dir = $ENV{KT_DIR};
sub {
    my $env = shift;
    my $path = $env->{PATH_INFO};
    return sub {
        my $w = shift->([200, ['Content-Type' => 'text/plain']]);
        if ($path eq '/no-close') { $w->write('unclosed'); return }
        $w->write('first;');
        my $deadline = Time::HiRes::time() + 5;
        Time::HiRes::sleep(0.005) until -e "$dir/client-has-first" or Time::HiRes::time() > $deadline;
        $w->write(-e "$dir/client-has-first" ? 'second;' : 'timeout;');
        $w->close;
    };
}
APP

my $c = $server->connect;
syswrite $c, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n";
my $buf = '';
vec(my $rin = '', fileno $c, 1) = 1;
while ($buf !~ /first;/ && select(my $r = $rin, undef, undef, 10)) { sysread $c, $buf, 4096, length $buf or last }
like $buf, qr{\AHTTP/1\.1 200 OK\r\n.*\r\n\r\n6\r\nfirst;\r\n\z}s, 'the first write arrives on its own, while the app is still running';
open my $fh, '>', "$dir/client-has-first" or die;
close $fh;
my $res = read_response($c, buffer => \(my $carry = $buf));
is $res && $res->{body}, 'first;second;', 'then the rest: the app saw the client had the first part';

syswrite $c, "GET /no-close HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c);
is $res && $res->{body}, 'unclosed', 'a writer never closed: the body is ended for the app';
syswrite $c, "GET /no-close HTTP/1.1\r\nHost: x\r\n\r\n";
is read_response($c)->{status}, 200, 'and the connection goes on';
done_testing;
