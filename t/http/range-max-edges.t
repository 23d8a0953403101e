# The high ends of the ranges are values the server really works with:
# --max-keepalive-reqs 2147483647 keeps a connection for many requests (a
# count past a C int used to allow one), --request-timeout 86400 arms the
# request timers (1e308 used to make every request a 500).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(args => ['--max-keepalive-reqs', 2147483647, '--request-timeout', 86400],
    app => 'sub { [200, ["Content-Type" => "text/plain"], [$_[0]{PATH_INFO}]] }');

my $c = $server->connect;
for my $n (1 .. 5) {
    print $c "GET /r$n HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{status}, 200, "request $n on one connection: 200";
    is $res && $res->{body}, "/r$n", 'its own answer';
    is $res && ($res->{headers}{connection} // ''), '', 'the connection stays open';
}
is $server->stop, 0, 'stops cleanly';
unlike $server->log, qr/request timers/, 'the timers were set';
done_testing;
