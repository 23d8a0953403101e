# An app that dies gets a 500 with a short generic body (never the error
# text); the error, with the request's method and path, goes to the log;
# the connection and the worker stay usable. Dying inside a delayed
# response before responding is the same; dying in the middle of a
# streamed body cuts the connection so the client never sees a body that
# looks complete.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/app died: (?:mid-stream boom|late boom|HASH\(|boom)/);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    die "boom" if $p eq '/die';
    die { not => 'a string' } if $p eq '/die-ref';
    return sub { die "late boom\n" } if $p eq '/delayed-die';
    return sub { my $w = shift->([200, ['Content-Type' => 'text/plain']]); $w->write('partial'); die "mid-stream boom\n" }
        if $p eq '/stream-die';
    [200, ['Content-Type' => 'text/plain'], ["pid $$"]];
}
APP

my $c = $server->connect;
my $buf = '';
syswrite $c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n";
my ($pid) = read_response($c, buffer => \$buf)->{body} =~ /pid (\d+)/;

for my $path ('/die?x=1', '/die-ref', '/delayed-die') {
    subtest $path => sub {
        syswrite $c, "POST $path HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
        my $res = read_response($c, buffer => \$buf);
        like $res && $res->{head}, qr{\AHTTP/1\.1 500 Internal Server Error\r\n}, 'status 500';
        is $res->{body}, "Internal Server Error\n", 'a short generic body';
        is $res->{headers}{'content-length'}, 22, 'with its length';
        ok !exists $res->{headers}{connection}, 'the connection is kept';
        syswrite $c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n";
        is read_response($c, buffer => \$buf)->{body}, "pid $pid", 'the same connection and worker serve the next request';
    };
}
like $server->log, qr{^\S+ \[error\] worker $pid \[[^\]]+\]: POST /die\?x=1 HTTP/1\.1: app died: boom at \S+ line \d+\.$}m,
    'the log has the request line and the error';
like $server->log, qr{POST /die-ref HTTP/1\.1: app died: HASH\(0x}m, 'a non-string exception is logged too';
like $server->log, qr{POST /delayed-die HTTP/1\.1: app died: late boom$}m, 'and an error in a delayed response';

my $c2 = $server->connect;
syswrite $c2, "GET /stream-die HTTP/1.1\r\nHost: x\r\n\r\n";
my ($got, $how) = read_until_close($c2);
like $got, qr{\AHTTP/1\.1 200 OK\r\n.*\r\n\r\n7\r\npartial\r\n\z}s, 'a stream that dies: what was sent, and no last chunk';
is $how, 'eof', 'the connection is cut';
like $server->log, qr{GET /stream-die HTTP/1\.1: app died: mid-stream boom$}m, 'and the error is logged';

syswrite $c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n";
is read_response($c, buffer => \$buf)->{body}, "pid $pid", 'the worker is still the same';
unlike $server->log, qr{exited with|worker failed}, 'no worker died';
done_testing;
