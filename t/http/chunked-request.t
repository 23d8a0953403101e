# A chunked request body reaches the app decoded through psgi.input, with
# CONTENT_LENGTH set to the decoded length and no Transfer-Encoding left in
# %env; chunk extensions and trailers are accepted and dropped; the
# connection then serves the next request.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(exchange parse_all);

my $server = start_server(app => <<'APP');
use Digest::MD5 qw(md5_hex);
sub {
    my $env = shift;
    my $in = do { local $/; my $fh = $env->{'psgi.input'}; <$fh> } // '';
    my $te = $env->{HTTP_TRANSFER_ENCODING} // 'none';
    my $tr = $env->{HTTP_X_TRAILER} // 'none';
    my $shown = length $in > 100 ? md5_hex($in) : $in;
    [200, ['Content-Type' => 'text/plain'], ["cl=$env->{CONTENT_LENGTH} te=$te trailer=$tr body=$shown"]];
}
APP

my $c = $server->connect;
my $buf = '';
syswrite $c, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    . "5\r\nhello\r\n"
    . "1;ext=val\r\n \r\n"                    # an extension with a value
    . "00005 ;x=\"y z\";flag\r\nworld\r\n"    # leading zeros, BWS, quoted and bare extensions
    . "A\r\n0123456789\r\n"                   # upper-case hex
    . "b\r\n\r\n0\r\n\r\nabcd\r\n"            # data that looks like framing (11 bytes)
    . "0\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n";
my $res = read_response($c, buffer => \$buf);
is $res && $res->{status}, 200, 'accepted';
is $res->{body}, "cl=32 te=none trailer=none body=hello world0123456789\r\n0\r\n\r\nabcd",
    'decoded body, CONTENT_LENGTH of the decoded body, no TE, trailers dropped';

syswrite $c, "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n";
$res = read_response($c, buffer => \$buf);
is $res && $res->{body}, 'cl=0 te=none trailer=none body=', 'an empty chunked body (Chunked in any case), same connection';

my $big = join '', map { chr(($_ * 31) % 256) } 1 .. 300_000;
my @sizes = (1, 2, 4093, 65536, 100_000);
my ($enc, $pos) = ('', 0);
while ($pos < length $big) {
    my $n = $sizes[$pos % @sizes];
    my $piece = substr $big, $pos, $n;
    $enc .= sprintf("%x\r\n", length $piece) . $piece . "\r\n";
    $pos += length $piece;
}
($res) = do {
    syswrite $c, "POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n$enc" . "0\r\n\r\n";
    read_response($c, buffer => \$buf, timeout => 20);
};
is $res && $res->{body}, 'cl=300000 te=none trailer=none body=' . md5_hex($big), '300000 bytes in chunks of many sizes';
is $buf, '', 'nothing extra';

# the same kind of body, one byte per write
my $c2 = $server->connect;
my ($got, $how) = exchange($c2, "POST /slow HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    . "3;a=b\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nX-T: 1\r\n\r\n", piece => 1);
my ($all, $rest) = parse_all($got);
is $all->[0] && $all->[0]{body}, 'cl=19 te=none trailer=none body=abc0123456789abcdef', 'a chunked body arriving byte by byte';
is $how, 'eof', 'closed as asked';
done_testing;
