# Two Host fields are 400 (RFC 9112 3.2), in HTTP/1.1 and 1.0.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "two Host, same value", "GET /a HTTP/1.1\r\n${H}${H}\r\n", 400);
rejects_ok($server, "two Host, different", "GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
rejects_ok($server, "two Host, different case", "GET /a HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", 400);
rejects_ok($server, "two Host in HTTP/1.0", "GET /a HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400);
done_testing;
