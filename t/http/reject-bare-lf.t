# Bare LF line endings are 400: after the request line, after a field, and as
# the empty line ending the head.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "all bare LF", "GET /a HTTP/1.1\n${H}\n", 400);
rejects_ok($server, "request line", "GET /a HTTP/1.1\n${H}\r\n", 400);
rejects_ok($server, "a field", "GET /a HTTP/1.1\r\nHost: x\n\r\n", 400);
rejects_ok($server, "the empty line", "GET /a HTTP/1.1\r\n${H}\n", 400);
done_testing;
