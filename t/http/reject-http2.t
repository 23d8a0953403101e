# A request line with HTTP/2.0 (or another major version) is 505; a malformed
# version is 400.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "HTTP/2.0", "GET /a HTTP/2.0\r\n${H}\r\n", 505);
rejects_ok($server, "HTTP/3.0", "GET /a HTTP/3.0\r\n${H}\r\n", 505);
rejects_ok($server, "HTTP/0.9", "GET /a HTTP/0.9\r\n${H}\r\n", 505);
rejects_ok($server, "lower-case http/1.1", "GET /a http/1.1\r\n${H}\r\n", 400);
rejects_ok($server, "HTTP/1.10", "GET /a HTTP/1.10\r\n${H}\r\n", 400);
done_testing;
