# A bare CR (not followed by LF) in the request line or a header is 400.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "in a value", "GET /a HTTP/1.1\r\n${H}X-A: 1\rX-B: 2\r\n\r\n", 400);
rejects_ok($server, "at the end of a value", "GET /a HTTP/1.1\r\n${H}X-A: 1\r\r\n\r\n", 400);
rejects_ok($server, "in a name", "GET /a HTTP/1.1\r\n${H}X\r-A: 1\r\n\r\n", 400);
rejects_ok($server, "in the request line", "GET /a\r HTTP/1.1\r\n${H}\r\n", 400);
done_testing;
