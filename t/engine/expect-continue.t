# Expect: 100-continue is answered before the body is sent; other
# expectations are 417.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response raw_request);

my $server = start_server(app => 'sub { my $e = shift; $e->{"psgi.input"}->read(my $b, 100); [200, ["Content-Type" => "text/plain"], ["got $b"]] }');
my $c = $server->connect;
print $c "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n";
my $res = read_response($c);
is $res->{status}, 100, '100 Continue before the body';
print $c 'hello';
$res = read_response($c);
is $res->{status}, 200, 'then the final response';
is $res->{body}, 'got hello', 'with the body the client sent after the 100';

like raw_request($server, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nExpect: fancy\r\n\r\nx"),
    qr{\AHTTP/1\.1 417 }, 'another expectation: 417';
done_testing;
