# Transfer-Encoding together with Content-Length is 400 (RFC 9112 6.1: the
# classic smuggling vector), in either order, and the connection closes.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "TE then CL", "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400);
rejects_ok($server, "CL then TE", "POST /a HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
rejects_ok($server, "CL 0 with TE", "POST /a HTTP/1.1\r\n${H}Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
done_testing;
