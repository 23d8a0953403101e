# HEAD, 204 and 304 responses carry no body; HEAD keeps the Content-Length
# a GET would have.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $p = $_[0]{PATH_INFO};
    return [204, [], ['ignored']] if $p eq '/204';
    return [304, ['ETag' => '"x"'], ['ignored']] if $p eq '/304';
    return sub { my $w = shift->([200, ['Content-Type' => 'text/plain']]); $w->write('streamed'); $w->close } if $p eq '/stream';
    [200, ['Content-Type' => 'text/plain'], ['hello']];
}
APP
my $c = $server->connect;
print $c "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c, head => 1);
is $res->{status}, 200, 'HEAD';
is $res->{headers}{'content-length'}, 5, 'HEAD: the Content-Length of the GET';
print $c "HEAD /stream HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c, head => 1);
ok !exists $res->{headers}{'transfer-encoding'}, 'HEAD of a stream: no chunked framing';
for my $s (204, 304) {
    print $c "GET /$s HTTP/1.1\r\nHost: x\r\n\r\n";
    $res = read_response($c);
    is $res->{status}, $s, "status $s";
    ok !exists $res->{headers}{'content-length'}, "$s: no Content-Length";
}
# if any of those had sent a body, this response would be misread
print $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c);
is $res->{body}, 'hello', 'the connection is still in step: no stray body bytes were sent';
done_testing;
