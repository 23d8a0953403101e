# Two Content-Length fields are 400, even when equal, even in different case.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "equal", "POST /a HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400);
rejects_ok($server, "different", "POST /a HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400);
rejects_ok($server, "different case", "POST /a HTTP/1.1\r\n${H}Content-Length: 3\r\ncontent-length: 3\r\n\r\nabc", 400);
rejects_ok($server, "as a list", "POST /a HTTP/1.1\r\n${H}Content-Length: 3, 3\r\n\r\nabc", 400);
done_testing;
