# A delayed or streaming response that is invalid (the responder given a
# bad header, a bad status, a string, a non-array header list) gets a 500
# and a log line with the request line; the connection and the worker stay
# usable. (Nothing has been sent when the responder refuses, so a 500 can
# still be sent.) Every request is sent first, each on its own connection,
# so a server that never answers costs one timeout, not one per case.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::Log qw($PREFIX);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(parse_response);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/invalid response from the app|app died: (?:response is not|bad status|CR, LF or NUL)/);

my $server = start_server(app => <<'APP');
my %bad = (
    '/stream-lf-value'   => sub { shift->([200, ['X-Bad' => "a\nInjected: 1"]]) },
    '/stream-bad-status' => sub { shift->([99, []]) },
    '/stream-hash'       => sub { shift->([200, { 'Content-Type' => 'text/plain' }]) },
    '/responder-string'  => sub { shift->('a string') },
    '/responder-one'     => sub { shift->([200]) },
    '/delayed-lf-value'  => sub { shift->([200, ['X-Bad' => "a\nInjected: 1"], ['x']]) },
);
sub {
    my $env = shift;
    my $bad = $bad{ $env->{PATH_INFO} };
    return $bad if $bad;
    [200, ['Content-Type' => 'text/plain'], ["pid $$"]];
}
APP

my @paths = qw(/stream-lf-value /stream-bad-status /stream-hash /responder-string /responder-one /delayed-lf-value);
my %conn;
for my $path (@paths) {
    $conn{$path} = $server->connect;
    syswrite $conn{$path}, "GET $path?q=1 HTTP/1.1\r\nHost: x\r\n\r\n";
}
my $deadline = Time::HiRes::time() + 30;
for my $path (@paths) {
    subtest $path => sub {
        my $c = $conn{$path};
        my $left = $deadline - Time::HiRes::time();
        my $res = read_response($c, timeout => $left > 0.2 ? $left : 0.2);
        like $res && $res->{head}, qr{\AHTTP/1\.1 500 Internal Server Error\r\n}, 'status 500';
        is $res && $res->{body}, "Internal Server Error\n", 'the generic body';
        unlike $res && $res->{head}, qr/Injected|X-Bad/, 'nothing of the bad response';
        like $server->log, qr{^${PREFIX}GET \Q$path\E\?q=1 HTTP/1\.1: }m, 'a log line with the request line';
        if ($res) {
            syswrite $c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n";
            like +(read_response($c, timeout => 30) // {})->{body}, qr/^pid \d+$/,
                'the connection serves the next request';
        } else {
            fail 'the connection serves the next request (it never answered this one)';
        }
    };
}
unlike $server->log, qr{exited with|worker failed}, 'no worker died';
done_testing;
