# HTTP/1.0 closes by default; with Connection: keep-alive (what ab -k
# sends) the answer says keep-alive and the connection stays open.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], ["hi"]] }');

my $c = $server->connect;
print $c "GET / HTTP/1.0\r\n\r\n";
my $res = read_response($c);
is $res->{status}, 200, 'plain HTTP/1.0 request';
is $res->{headers}{connection}, 'close', 'answered with Connection: close';
is sysread($c, my $buf, 1), 0, 'and closed';

$c = $server->connect;
for my $i (1 .. 3) {
    print $c "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: x\r\n\r\n";
    $res = read_response($c);
    is $res->{status}, 200, "keep-alive request $i";
    is $res->{headers}{connection}, 'keep-alive', 'answered with Connection: keep-alive';
    is $res->{headers}{'content-length'}, 2, 'with a Content-Length, so the client knows the end';
}
print $c "GET / HTTP/1.0\r\n\r\n";
$res = read_response($c);
is $res->{headers}{connection}, 'close', 'a request without keep-alive on the same connection ends it';
is sysread($c, $buf, 1), 0, 'closed';
done_testing;
