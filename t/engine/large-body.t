# Bodies above --spool-threshold go to a temporary file and arrive intact;
# smaller ones stay in memory.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use Kamado::Test qw(start_server read_response);

my $app = <<'APP';
use Digest::MD5;
sub {
    my $env = shift;
    my $in = $env->{'psgi.input'};
    my $md5 = Digest::MD5->new;
    my $len = 0;
    while (my $n = $in->read(my $buf, 65536)) { $md5->add($buf); $len += $n }
    my $where = defined(fileno $in) && fileno($in) >= 0 ? 'file' : 'memory';
    [200, ['Content-Type' => 'text/plain'], [join ' ', $len, $md5->hexdigest, $where]];
}
APP

for my $case ([[], 3_000_000, 'file'], [[], 5000, 'memory'], [['--spool-threshold', 1000], 5000, 'file']) {
    my ($args, $size, $where) = @$case;
    my $server = start_server(app => $app, args => $args);
    my $body = join '', map { chr(($_ * 7) % 256) } 1 .. $size;
    for my $framing ('content-length', 'chunked') {
        my $c = $server->connect;
        if ($framing eq 'chunked') {
            print $c "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                (map { sprintf("%x\r\n%s\r\n", length, $_) } unpack '(a100000)*', $body), "0\r\n\r\n";
        } else {
            print $c "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: $size\r\n\r\n", $body;
        }
        my $res = read_response($c, timeout => 30);
        is $res->{body}, join(' ', $size, md5_hex($body), $where), "@$args $size bytes, $framing: intact, in $where";
    }
}
done_testing;
