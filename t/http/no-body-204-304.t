# 204 and 304 responses carry no body, even when the app gives one, and no
# chunked framing when streamed; the connection stays in step (the next
# response is parsed from the very next byte).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all);

my $server = start_server(app => <<'APP');
sub {
    my $p = $_[0]{PATH_INFO};
    return [204, ['X-S' => 204], ['ignored body']] if $p eq '/204';
    return [304, ['ETag' => '"x"'], ['ignored body']] if $p eq '/304';
    return sub { my $w = shift->([204, []]); $w->write('ignored'); $w->close } if $p eq '/204-stream';
    return sub { my $w = shift->([304, []]); $w->write('ignored'); $w->close } if $p eq '/304-stream';
    [200, ['Content-Type' => 'text/plain'], ["ok $p"]];
}
APP

my @paths = ('/204', '/a', '/304', '/b', '/204-stream', '/c', '/304-stream');
my $c = $server->connect;
my ($got, $how) = exchange($c, join('', map { "GET $_ HTTP/1.1\r\nHost: x\r\n\r\n" } @paths)
    . "GET /end HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($res, $rest) = parse_all($got);
is_deeply [map { $_->{status_line} } @$res],
    ['HTTP/1.1 204 No Content', 'HTTP/1.1 200 OK', 'HTTP/1.1 304 Not Modified', 'HTTP/1.1 200 OK',
     'HTTP/1.1 204 No Content', 'HTTP/1.1 200 OK', 'HTTP/1.1 304 Not Modified', 'HTTP/1.1 200 OK'],
    'every response, in order';
is_deeply [map { $_->{body} } @$res[1, 3, 5, 7]], ['ok /a', 'ok /b', 'ok /c', 'ok /end'],
    'the responses behind the bodiless ones are intact';
is $rest, '', 'not a stray byte';
is $how, 'eof', 'closed as asked';
for my $i (0, 2, 4, 6) {
    ok !exists $res->[$i]{headers}{'content-length'}, "$paths[$i]: no Content-Length";
    ok !exists $res->[$i]{headers}{'transfer-encoding'}, "$paths[$i]: no Transfer-Encoding";
    ok !exists $res->[$i]{headers}{connection}, "$paths[$i]: the connection is kept";
}
is $res->[2]{headers}{etag}, '"x"', '304 keeps the app\'s headers';
done_testing;
