# A request line longer than the 8192-byte limit is 414. The limit counts the
# line with its CRLF, as the 65536-byte head limit counts every CRLF: a
# 8190-byte line (8192 with CRLF) is served, one byte more is 414. A long
# line is refused as soon as the limit is passed, before any LF arrives.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok served_ok read_until_close hits);

my $server = hit_server();
my $H = "Host: x\r\n";

my ($pre, $post) = ("GET /", " HTTP/1.1");
sub line_of { my ($len, $c) = @_; $pre . ($c x ($len - length($pre) - length($post))) . $post }

my $max = line_of(8190, "a");
served_ok($server, "request line of 8190 bytes + CRLF", "$max\r\n${H}Connection: close\r\n\r\n", "/" . ("a" x (8190 - 14)));
rejects_ok($server, "request line of 8191 bytes + CRLF", line_of(8191, "b") . "\r\n${H}\r\n", 414);
rejects_ok($server, "request line of 9000 bytes", line_of(9000, "c") . "\r\n${H}\r\n", 414);

# no LF at all: answered once the limit is passed, without waiting for the rest
my $c = $server->connect;
syswrite $c, "GET /" . ("d" x 8200);
my ($got, $how) = read_until_close($c, 5);
like $got, qr{\AHTTP/1\.1 414 URI Too Long\r\n}, "8200 bytes and no LF yet: 414 at once";
is $how, "eof", "and closed";
unlike hits($server), qr{^GET /[bcd]}m, "no long request reached the app";
done_testing;
