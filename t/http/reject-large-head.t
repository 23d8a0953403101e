# A request head (request line, fields and the empty line, every CRLF
# counted) over 65536 bytes is 431; exactly 65536 is served.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok served_ok read_until_close hits);

my $server = hit_server();
my $H = "Host: x\r\n";

sub head_of {
    my ($total, $path) = @_;
    my $start = "GET $path HTTP/1.1\r\n${H}";
    my $fill = $total - length($start) - length("X-Fill: \r\n\r\n");
    return $start . "X-Fill: " . ("f" x $fill) . "\r\n\r\n";
}
is length head_of(65536, "/max"), 65536, "the head below is exactly 65536 bytes";
served_ok($server, "a 65536-byte head", head_of(65536, "/max"), "/max");
rejects_ok($server, "a 65537-byte head", head_of(65537, "/over"), 431);
rejects_ok($server, "70 fields of 1000 bytes", "GET /a HTTP/1.1\r\n${H}" . ("X-Long: " . ("b" x 1000) . "\r\n") x 70 . "\r\n", 431);

# a head that never ends is refused once the limit is passed
my $c = $server->connect;
syswrite $c, "GET /endless HTTP/1.1\r\n${H}" . ("X-More: " . ("e" x 100) . "\r\n") x 700;
my ($got, $how) = read_until_close($c, 5);
like $got, qr{\AHTTP/1\.1 431 Request Header Fields Too Large\r\n}, "an endless head: 431 without waiting for its end";
ok $how eq "eof" || $how eq "reset", "and closed ($how)";
unlike hits($server), qr{/over|/endless|^GET /a }m, "no oversized head reached the app";
done_testing;
