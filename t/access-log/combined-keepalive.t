# --access-log FILE with the default format (combined): a keep-alive
# series on one connection, a GET with Referer and User-Agent, a HEAD, a
# POST with a body, a 404 and a query string, gives one line per request,
# in order, each parsed field by field: client, time, request line,
# status, body bytes ("-" for none: the HEAD), Referer, User-Agent.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use POSIX ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines parse_combined);

my $dir = File::Temp->newdir;
my $log = "$dir/access.log";
my $server = start_server(args => ['--access-log', $log], app => <<'APP');
sub {
    my ($env) = @_;
    return [404, ['Content-Type' => 'text/plain'], ['no such page']] if $env->{PATH_INFO} eq '/missing';
    my $body = $env->{REQUEST_METHOD} eq 'POST' ? do { local $/; readline $env->{'psgi.input'} } : 'hello';
    return [200, ['Content-Type' => 'text/plain'], [$body]];
}
APP

my $c = $server->connect;
my $buf = '';
my @requests = (
    ["GET /a HTTP/1.1\r\nHost: x\r\nReferer: http://example.com/from\r\nUser-Agent: test-agent/1.0\r\n\r\n", 200, 'hello'],
    ["HEAD /b HTTP/1.1\r\nHost: x\r\n\r\n", 200, '', 1],
    ["POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\npayload", 200, 'payload'],
    ["GET /missing HTTP/1.1\r\nHost: x\r\n\r\n", 404, 'no such page'],
    ["GET /q?x=1&y=%20z HTTP/1.1\r\nHost: x\r\nUser-Agent: with \"quotes\"\r\n\r\n", 200, 'hello'],
);
my $before = time;
for my $r (@requests) {
    syswrite $c, $r->[0];
    my $res = read_response($c, buffer => \$buf, head => $r->[3]);
    is $res && $res->{status}, $r->[1], "served: " . ($r->[0] =~ /\A(\S+ \S+)/)[0];
}
my @lines = wait_lines($log, 5);
is scalar(@lines), 5, 'five lines, one per request' or diag @lines;
my @f = map { parse_combined($_) } @lines;
ok !(grep { !$_ } @f), 'each is a combined line' or diag @lines;
is_deeply [map { $_->{request} } @f],
    ['GET /a HTTP/1.1', 'HEAD /b HTTP/1.1', 'POST /c HTTP/1.1', 'GET /missing HTTP/1.1', 'GET /q?x=1&y=%20z HTTP/1.1'],
    'the request lines, in order';
is_deeply [map { $_->{status} } @f], [200, 200, 200, 404, 200], 'the statuses';
is_deeply [map { $_->{bytes} } @f], [5, '-', 7, 12, 5], 'the body bytes (none for the HEAD)';
is_deeply [map { $_->{host} } @f], [('127.0.0.1') x 5], 'the client address';
is_deeply [map { "$_->{ident} $_->{user}" } @f], [('- -') x 5], 'no ident, no user';
is $f[0]{referer}, 'http://example.com/from', 'the Referer';
is $f[0]{agent}, 'test-agent/1.0', 'the User-Agent';
is $f[1]{agent}, '-', 'no User-Agent: -';
is $f[4]{agent}, 'with \\"quotes\\"', 'quotes in a header are escaped, as Apache does';
my $now = time;
for my $i (0 .. $#f) {
    my $t = $f[$i]{time};
    my ($d, $mon, $y, $h, $m, $s) = $t =~ m{^(\d\d)/(\w{3})/(\d{4}):(\d\d):(\d\d):(\d\d) } or next;
    my %mon = (Jan => 0, Feb => 1, Mar => 2, Apr => 3, May => 4, Jun => 5, Jul => 6, Aug => 7, Sep => 8, Oct => 9, Nov => 10, Dec => 11);
    my ($zs, $zh, $zm) = $t =~ / ([-+])(\d\d)(\d\d)$/;
    my $epoch = POSIX::mktime($s, $m, $h, $d, $mon{$mon}, $y - 1900);
    ok $epoch >= $before - 2 && $epoch <= $now + 2, "line $i: its time is the request's ($t)";
}
close $c;
is $server->stop, 0, 'the server stops cleanly';
done_testing;
