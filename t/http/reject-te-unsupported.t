# Transfer-Encoding: the body's length is known only when chunked is the
# final coding, applied once: anything else is 400 (RFC 9112 6.3). A coding
# Kamado does not implement before a final chunked is 501 (RFC 9112 6.1).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

for my $te ("gzip", "chunked, identity", "identity", "chunked, chunked", "chunkedx", '"chunked"') {
    rejects_ok($server, "Transfer-Encoding: $te", "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: $te\r\n\r\n0\r\n\r\n", 400);
}
for my $te ("gzip, chunked", "deflate,chunked") {
    rejects_ok($server, "Transfer-Encoding: $te", "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: $te\r\n\r\n0\r\n\r\n", 501);
}
done_testing;
