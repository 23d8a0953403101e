# A Content-Length that is not 1*DIGIT is 400: letters, signs, inner spaces,
# hex, empty, and a value too large for 64 bits.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $H = "Host: x\r\n";

for my $cl ("abc", "-1", "+5", "5 5", "0x5", "5a", "", "5,", "99999999999999999999") {
    rejects_ok($server, "Content-Length: [$cl]", "POST /a HTTP/1.1\r\n${H}Content-Length: $cl\r\n\r\nhello", 400);
}
done_testing;
