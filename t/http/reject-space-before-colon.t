# Whitespace between a field name and its colon is 400 (RFC 9112 5.1).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "space", "GET /a HTTP/1.1\r\n${H}X-A : 1\r\n\r\n", 400);
rejects_ok($server, "tab", "GET /a HTTP/1.1\r\n${H}X-A\t: 1\r\n\r\n", 400);
rejects_ok($server, "on Host", "GET /a HTTP/1.1\r\nHost : x\r\n\r\n", 400);
rejects_ok($server, "on Content-Length", "POST /a HTTP/1.1\r\n${H}Content-Length : 5\r\n\r\nhello", 400);
done_testing;
