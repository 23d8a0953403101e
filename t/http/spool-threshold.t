# --spool-threshold: a body larger than the threshold goes to a temporary
# file (psgi.input is a real file handle), one of exactly the threshold or
# smaller stays in memory; either way it arrives intact. With
# --spool-threshold 1000, a 5000-byte body is spooled.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use Kamado::Test qw(start_server read_response);

my $app = <<'APP';
use Digest::MD5 qw(md5_hex);
sub {
    my $env = shift;
    my $in = $env->{'psgi.input'};
    my $fd = fileno $in;
    my $where = defined $fd && $fd >= 0 && -f $in ? 'file' : 'memory';
    my $body = do { local $/; <$in> } // '';
    [200, ['Content-Type' => 'text/plain'], [join ' ', $env->{CONTENT_LENGTH}, length $body, md5_hex($body), $where]];
}
APP

sub post {
    my ($server, $size, $chunked) = @_;
    my $body = join '', map { chr(($_ * 7 + 3) % 256) } 1 .. $size;
    my $c = $server->connect;
    if ($chunked) {
        print $c "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            (map { sprintf("%x\r\n%s\r\n", length, $_) } unpack '(a700)*', $body), "0\r\n\r\n";
    } else {
        print $c "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: $size\r\n\r\n", $body;
    }
    my $res = read_response($c);
    my @f = split / /, ($res && $res->{body}) // '';
    return (\@f, $body);
}

for my $case (
    [[], 5000, 'memory'],
    [['--spool-threshold', 1000], 5000, 'file'],
    [['--spool-threshold', 1000], 1001, 'file'],
    [['--spool-threshold', 1000], 1000, 'memory'],
    [['--spool-threshold', 1000], 999, 'memory'],
) {
    my ($args, $size, $where) = @$case;
    my $server = start_server(app => $app, args => $args);
    for my $chunked (0, 1) {
        my $name = (@$args ? "@$args" : 'default threshold') . ", $size bytes" . ($chunked ? ', chunked' : '');
        my ($got, $body) = post($server, $size, $chunked);
        is_deeply $got, [$size, $size, md5_hex($body), $where], "$name: intact, in $where";
    }
}
done_testing;
