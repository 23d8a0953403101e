# HTTP/1.1 keeps the connection open by default; Connection: close ends it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], [$_[0]{PATH_INFO}]] }');
my $c = $server->connect;
for my $i (1 .. 5) {
    print $c "GET /r$i HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    is $res->{status}, 200, "request $i on one connection";
    is $res->{body}, "/r$i", "body $i";
    ok !exists $res->{headers}{connection}, 'no Connection header needed in 1.1';
    is $res->{headers}{'content-length'}, length "/r$i", 'Content-Length computed for an array body';
}
print $c "GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $res = read_response($c);
is $res->{body}, '/last', 'the request with Connection: close is answered';
is $res->{headers}{connection}, 'close', 'with Connection: close';
is sysread($c, my $buf, 1), 0, 'and the server closed the connection';
done_testing;
