# The path is percent-decoded into PATH_INFO, so a "%" there that does not
# start a valid escape, or an escape of NUL, is 400. The query string is
# the app's to decode: its escapes pass through untouched.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

rejects_ok($server, "%zz in the path", "GET /a%zz HTTP/1.1\r\n${H}\r\n", 400);
rejects_ok($server, "%4 at the end of the path", "GET /a%4 HTTP/1.1\r\n${H}\r\n", 400);
rejects_ok($server, "a lone % before the query", "GET /a%?x=1 HTTP/1.1\r\n${H}\r\n", 400);
rejects_ok($server, "%00 in the path", "GET /a%00.txt HTTP/1.1\r\n${H}\r\n", 400);
rejects_ok($server, "%00 in an absolute-form path", "GET http://x/%00 HTTP/1.1\r\n${H}\r\n", 400);

subtest 'escapes in the query are passed on' => sub {
    my $c = $server->connect;
    syswrite $c, "GET /q%41?v=100%&w=%zz HTTP/1.1\r\n${H}Connection: close\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{status}, 200, 'served';
    like Kamado::Test::HTTP::hits($server), qr{^GET /qA 0$}m, 'the path decoded, the query left alone';
};
done_testing;
