# An HTTP/1.1 request without Host is 400 (RFC 9112 3.2); HTTP/1.0 needs none.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok read_until_close);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "no Host", "GET /a HTTP/1.1\r\nX-A: 1\r\n\r\n", 400);
rejects_ok($server, "no fields at all", "GET /a HTTP/1.1\r\n\r\n", 400);
rejects_ok($server, "Hosts is not Host", "GET /a HTTP/1.1\r\nHosts: x\r\n\r\n", 400);

my $c = $server->connect;
syswrite $c, "GET /ten HTTP/1.0\r\n\r\n";
my ($got, $how) = read_until_close($c);
is $how, "eof", "HTTP/1.0 without keep-alive: closed after the response";
like $got, qr{\AHTTP/1\.1 200 OK\r\n}, "HTTP/1.0 without Host is served";
like Kamado::Test::HTTP::hits($server), qr{^GET /ten 0$}m, "and reaches the app";
done_testing;
