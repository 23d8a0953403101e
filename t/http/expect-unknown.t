# An Expect value other than 100-continue is 417 Expectation Failed; the
# connection closes and the app never runs.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
for my $expect ('fancy', '200-ok', '100-continue, foo', '100-continuex', '') {
    rejects_ok($server, "Expect: [$expect]", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nExpect: $expect\r\n\r\nx", 417);
}
rejects_ok($server, 'Expect on a GET', "GET /a HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n", 417);
done_testing;
