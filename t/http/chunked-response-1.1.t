# A streamed response without Content-Length over HTTP/1.1 is sent with
# Transfer-Encoding: chunked, framed exactly (an empty write sends nothing,
# close sends the last chunk), and the connection serves the next request.
# With a Content-Length from the app, the body goes out as is.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(exchange parse_all);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $path = $env->{PATH_INFO};
    return sub {
        my $respond = shift;
        if ($path eq '/with-length') {
            my $w = $respond->([200, ['Content-Type' => 'text/plain', 'Content-Length' => 12]]);
            $w->write('abcdef') for 1 .. 2;
            $w->close;
            return;
        }
        my $w = $respond->([200, ['Content-Type' => 'text/plain']]);
        $w->write("part$_;") for 1 .. 3;
        $w->write('');                        # must not end the body
        $w->write('x' x 100_000) if $path eq '/big';
        $w->close;
    };
}
APP

my $c = $server->connect;
my ($got, $how) = exchange($c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\n"
    . "GET /with-length HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($res, $rest) = parse_all($got);
is scalar(@$res), 4, 'four responses on one connection';
is $rest, '', 'nothing else';
is $how, 'eof', 'closed after the request that asked';

my $r = $res->[0];
is $r->{status_line}, 'HTTP/1.1 200 OK', 'status';
is $r->{headers}{'transfer-encoding'}, 'chunked', 'Transfer-Encoding: chunked';
ok !exists $r->{headers}{'content-length'}, 'no Content-Length';
ok !exists $r->{headers}{connection}, 'no Connection: close';
is $r->{raw_body}, "6\r\npart1;\r\n6\r\npart2;\r\n6\r\npart3;\r\n0\r\n\r\n", 'exact chunk framing';

is $res->[1]{raw_body}, "6\r\npart1;\r\n6\r\npart2;\r\n6\r\npart3;\r\n186a0\r\n" . ('x' x 100_000) . "\r\n0\r\n\r\n",
    'a 100000-byte write is one chunk, size in hex';

is $res->[2]{headers}{'content-length'}, 12, 'with the app\'s Content-Length';
ok !exists $res->[2]{headers}{'transfer-encoding'}, 'not chunked';
is $res->[2]{raw_body}, 'abcdefabcdef', 'the body as written';

is $res->[3]{raw_body}, "6\r\npart1;\r\n6\r\npart2;\r\n6\r\npart3;\r\n0\r\n\r\n", 'the last one chunked too';
is $res->[3]{headers}{connection}, 'close', 'with Connection: close';
done_testing;
