# A malformed chunked body (bad chunk size, missing CRLF after the data,
# overflowing size, overlong size line or trailers, junk in trailers) is
# 400; the connection closes, the app never runs, and a request pipelined
# behind it is never processed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok);

my $server = hit_server();
my $head = "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
my @cases = (
    ['non-hex size',               "zz\r\nabc\r\n0\r\n\r\n"],
    ['size with 0x',               "0x5\r\nhello\r\n0\r\n\r\n"],
    ['signed size',                "+5\r\nhello\r\n0\r\n\r\n"],
    ['negative size',              "-5\r\nhello\r\n0\r\n\r\n"],
    ['two numbers',                "5 5\r\nhello\r\n0\r\n\r\n"],
    ['empty size line',            "\r\nhello\r\n0\r\n\r\n"],
    ['bare LF after the size',     "5\nhello\r\n0\r\n\r\n"],
    ['missing CRLF after data',    "3\r\nabcX\r\n0\r\n\r\n"],
    ['bare LF after data',         "3\r\nabc\n0\r\n\r\n"],
    ['data longer than the size',  "3\r\nabcd\r\n0\r\n\r\n"],
    ['size overflow (18 f)',       "ffffffffffffffffff\r\nx\r\n0\r\n\r\n"],
    ['size overflow (2^64 + 5)',   "10000000000000005\r\nhello\r\n0\r\n\r\n"],
    ['size line over 4096 bytes',  "5;" . ('e' x 5000) . "\r\nhello\r\n0\r\n\r\n"],
    ['trailers over 8192 bytes',   "5\r\nhello\r\n0\r\n" . ("X-T: " . ('t' x 100) . "\r\n") x 100 . "\r\n"],
    ['obs-fold in trailers',       "5\r\nhello\r\n0\r\nX-T: 1\r\n folded\r\n\r\n"],
    ['NUL in a trailer',           "5\r\nhello\r\n0\r\nX-T: a\0b\r\n\r\n"],
    ['CTL in an extension',        "5;a=\x01\r\nhello\r\n0\r\n\r\n"],
);
rejects_ok($server, $_->[0], $head . $_->[1], 400) for @cases;
done_testing;
