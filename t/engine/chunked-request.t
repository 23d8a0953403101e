# A chunked request body reaches the app decoded, with CONTENT_LENGTH set,
# chunk extensions and trailers dropped.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response raw_request);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $in = do { local $/; my $fh = $env->{'psgi.input'}; <$fh> } // '';
    my $te = $env->{HTTP_TRANSFER_ENCODING} // 'none';
    [200, ['Content-Type' => 'text/plain'], ["len=$env->{CONTENT_LENGTH} te=$te body=$in"]];
}
APP
my $c = $server->connect;
print $c "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    . "5\r\nhello\r\n1;ext=val\r\n \r\n00005 ;x=\"y z\"\r\nworld\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n";
my $res = read_response($c);
is $res->{status}, 200, 'chunked body accepted';
is $res->{body}, 'len=21 te=none body=hello world0123456789', 'decoded, with CONTENT_LENGTH, without TE';

print $c "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
$res = read_response($c);
is $res->{body}, 'len=0 te=none body=', 'an empty chunked body, on the same connection';

my $big = 'z' x 300_000;
print $c "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" . join('', map { sprintf("%x\r\n%s\r\n", length, $_) } unpack '(a65000)*', $big) . "0\r\n\r\n";
$res = read_response($c);
is $res->{body}, "len=300000 te=none body=$big", 'a body in many large chunks';

for my $size ('5 5', '5 ', '+5', '0x5') {
    my $got = raw_request($server, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n$size\r\nhello\r\n0\r\n\r\n");
    like $got, qr{\AHTTP/1\.1 400 }, "chunk size '$size': 400";
}
my $bad = raw_request($server, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n");
like $bad, qr{\AHTTP/1\.1 400 }, 'missing CRLF after chunk data: 400';
done_testing;
