# An app that dies, or returns something that is not a PSGI response, gets
# a generic 500; the error and the request line go to psgi.errors; the
# connection and the worker stay usable.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    die "boom at the app\n"                               if $p eq '/die';
    return 'a string'                                    if $p eq '/string';
    return [200, ['X-Bad' => "a\r\nInjected: 1"], ['x']] if $p eq '/split';
    return [99, [], ['x']]                               if $p eq '/status';
    return [200, ['Content-Type'], ['x']]                if $p eq '/odd';
    return sub { die "late boom\n" }                     if $p eq '/delayed-die';
    return sub { my $w = shift->([200, []]); $w->write('partial'); die "mid-stream\n" } if $p eq '/stream-die';
    [200, ['Content-Type' => 'text/plain'], ["pid $$"]];
}
APP

my $c = $server->connect;
for my $path (qw(/die /string /split /status /odd /delayed-die)) {
    print $c "GET $path?q=1 HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    is $res->{status}, 500, "$path: 500";
    is $res->{body}, 'Internal Server Error', "$path: a generic body";
    unlike $res->{head}, qr/Injected/, "$path: no header injected" ;
    print $c "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n";
    is read_response($c)->{status}, 200, "$path: the connection still serves";
}
like $server->log, qr{GET /die\?q=1 HTTP/1\.1: app died: boom at the app}, 'the error is logged with the request line';
like $server->log, qr{GET /string\?q=1 HTTP/1\.1: app returned an invalid response}, 'an invalid response is logged';
like $server->log, qr{GET /split\?q=1 HTTP/1\.1: invalid response from the app: bad status or header}, 'a header with CRLF is refused';

$c = $server->connect;
print $c "GET /stream-die HTTP/1.1\r\nHost: x\r\n\r\n";
my $buf = '';
1 while sysread $c, $buf, 4096, length $buf;
like $buf, qr/partial/, 'a stream that dies: what was sent arrives';
unlike $buf, qr/\r\n0\r\n\r\n\z/, 'but the body is not terminated as if complete';
like $server->log, qr{GET /stream-die HTTP/1\.1: app died: mid-stream}, 'and the error is logged';

my $c2 = $server->connect;
print $c2 "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n";
is read_response($c2)->{status}, 200, 'the worker is alive';
done_testing;
