# Transfer-Encoding in an HTTP/1.0 request is 400 (RFC 9112 6.1: a 1.0
# intermediary may not have understood it).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "TE chunked in 1.0", "POST /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400);
rejects_ok($server, "TE chunked in 1.0 with Host and keep-alive", "POST /a HTTP/1.0\r\n${H}Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
done_testing;
