# Pipelined requests that arrive split across many small writes (one byte
# at a time, and in pieces of every size from 1 to 13 bytes) are answered
# in order, exactly as when they arrive in one write.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $in = do { local $/; my $fh = $env->{'psgi.input'}; <$fh> } // '';
    [200, ['Content-Type' => 'text/plain'], ["$env->{PATH_INFO}" . (length $in ? " [$in]" : '')]];
}
APP

my @req = (
    (map { "GET /p$_ HTTP/1.1\r\nHost: x\r\n\r\n" } 1 .. 4),
    "POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world",
    "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext\r\n world\r\n0\r\nX-T: 1\r\n\r\n",
    "\r\nGET /after-crlf HTTP/1.1\r\nHost: x\r\n\r\n",    # RFC 9112 2.2: a stray CRLF is ignored
    "GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
);
my @want = ((map { "/p$_" } 1 .. 4), '/post [hello world]', '/chunked [hello world]', '/after-crlf', '/last');
my $batch = join '', @req;

for my $piece (1, 2, 3, 5, 7, 13) {
    my $c = $server->connect;
    setsockopt $c, IPPROTO_TCP, TCP_NODELAY, 1;    # every write its own segment
    my ($got, $how) = exchange($c, $batch, piece => $piece);
    is $how, 'eof', "pieces of $piece: closed after the last request";
    my ($res, $rest) = parse_all($got);
    is_deeply [map { $_->{body} } @$res], \@want, "pieces of $piece: every response, in order";
    is $rest, '', "pieces of $piece: nothing else";
}
done_testing;
