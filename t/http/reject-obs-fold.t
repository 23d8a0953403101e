# A header line starting with space or tab (obs-fold) is 400 (RFC 9112 5.2).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "space fold", "GET /a HTTP/1.1\r\n${H}X-A: 1\r\n folded\r\n\r\n", 400);
rejects_ok($server, "tab fold", "GET /a HTTP/1.1\r\n${H}X-A: 1\r\n\tfolded\r\n\r\n", 400);
rejects_ok($server, "fold right after the request line", "GET /a HTTP/1.1\r\n ${H}\r\n", 400);
rejects_ok($server, "folded Content-Length", "POST /a HTTP/1.1\r\n${H}Content-Length:\r\n 5\r\n\r\nhello", 400);
done_testing;
