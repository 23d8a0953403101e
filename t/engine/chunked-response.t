# A streamed response without Content-Length is chunked over HTTP/1.1 (the
# connection stays usable) and delimited by the close over HTTP/1.0.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    return sub {
        my $w = shift->([200, ['Content-Type' => 'text/plain']]);
        $w->write("part$_;") for 1 .. 3;
        $w->write('');                      # must not end the body early
        $w->close;
    };
}
APP
my $c = $server->connect;
print $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
my $buf = '';
vec(my $rin = '', fileno $c, 1) = 1;
while ($buf !~ /\r\n0\r\n\r\n\z/ && select(my $r = $rin, undef, undef, 5)) { sysread $c, $buf, 4096, length $buf or last }
my ($head, $body) = split /\r\n\r\n/, $buf, 2;
like $head, qr{^Transfer-Encoding: chunked\r?$}m, 'chunked over HTTP/1.1';
unlike $head, qr{^Content-Length}mi, 'no Content-Length';
is $body, "6\r\npart1;\r\n6\r\npart2;\r\n6\r\npart3;\r\n0\r\n\r\n", 'exact chunk framing';

print $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c);
is $res->{body}, 'part1;part2;part3;', 'the connection is reused after a chunked response';

$c = $server->connect;
print $c "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
$res = read_response($c);
ok !exists $res->{headers}{'transfer-encoding'}, 'HTTP/1.0: not chunked';
is $res->{headers}{connection}, 'close', 'HTTP/1.0: Connection: close, even though keep-alive was asked';
is $res->{body}, 'part1;part2;part3;', 'HTTP/1.0: raw body up to the close';
done_testing;
