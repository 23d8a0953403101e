# A NUL byte in a header value (or name, or the target) is 400.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "NUL in a value", "GET /a HTTP/1.1\r\n${H}X-A: a\0b\r\n\r\n", 400);
rejects_ok($server, "NUL ending a value", "GET /a HTTP/1.1\r\n${H}X-A: a\0\r\n\r\n", 400);
rejects_ok($server, "NUL in a name", "GET /a HTTP/1.1\r\n${H}X-\0A: a\r\n\r\n", 400);
rejects_ok($server, "NUL in the target", "GET /a\0b HTTP/1.1\r\n${H}\r\n", 400);
done_testing;
