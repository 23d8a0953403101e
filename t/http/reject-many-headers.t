# More than 100 header fields is 431; exactly 100 (Host included) is served.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(hit_server rejects_ok served_ok read_until_close hits);

my $server = hit_server();
my $H = "Host: x\r\n";

sub with_fields { my ($n, $path) = @_; "GET $path HTTP/1.1\r\n${H}" . join("", map { "X-F$_: $_\r\n" } 1 .. $n - 1) . "\r\n" }
served_ok($server, "100 fields", with_fields(100, "/hundred"), "/hundred");
rejects_ok($server, "101 fields", with_fields(101, "/a"), 431);
rejects_ok($server, "500 short fields", with_fields(500, "/b"), 431);
done_testing;
