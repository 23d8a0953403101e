# A 3 MB request body (above the default 1 MiB --spool-threshold) arrives
# intact, with Content-Length or chunked, and psgi.input is then a real
# file handle (a temporary file), rewound, that the app can read to the end.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
use Digest::MD5;
sub {
    my $env = shift;
    my $in = $env->{'psgi.input'};
    my $fd = fileno $in;
    my $real = defined $fd && $fd >= 0 && -f $in ? 'file' : 'not-a-file';
    my $md5 = Digest::MD5->new;
    my $len = 0;
    while (my $n = $in->read(my $buf, 65536)) { $md5->add($buf); $len += $n }
    [200, ['Content-Type' => 'text/plain'], ["$env->{CONTENT_LENGTH} $len " . $md5->hexdigest . " $real"]];
}
APP

my $size = 3_000_000;
my $body = join '', map { pack 'N', $_ * 2654435761 % 4294967296 } 1 .. $size / 4;
my $want = "$size $size " . md5_hex($body) . ' file';

my $c = $server->connect;
my $buf = '';
print $c "POST /cl HTTP/1.1\r\nHost: x\r\nContent-Length: $size\r\n\r\n", $body;
my $res = read_response($c, buffer => \$buf, timeout => 30);
is $res && $res->{body}, $want, 'Content-Length: CONTENT_LENGTH, bytes read, md5, and a real file';

print $c "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
    (map { sprintf("%x\r\n%s\r\n", length, $_) } unpack '(a65536)*', $body), "0\r\n\r\n";
$res = read_response($c, buffer => \$buf, timeout => 30);
is $res && $res->{body}, $want, 'chunked, on the same connection: the same';
is $buf, '', 'nothing extra';
done_testing;
