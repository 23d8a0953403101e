# A request body is read by the worker's event loop before the app runs
# (into the connection buffer when it fits, else, or when chunked, into a
# temporary file), so a client that sends it slowly costs a descriptor, not the
# worker: with one worker, other clients are served while it trickles.
# --read-timeout bounds each pause (408, app not run). The bytes reach the
# app intact, and a pipelined request behind a spooled body is served.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Digest::MD5 ();
use Kamado::Test qw(read_response);
use Kamado::Test::HTTP qw(hit_server hits read_until_close parse_response);

my $server = hit_server(args => ['--read-timeout', '1.5']);
my $sums = Kamado::Test::start_server(app => <<'APP');
use Digest::MD5 ();
sub {
    my $env = shift;
    my $in = $env->{'psgi.input'};
    my $body = do { local $/; <$in> } // '';
    [200, ['Content-Type' => 'text/plain'], [length($body) . ' ' . Digest::MD5::md5_hex($body)]];
}
APP
my $H = "Host: x\r\n";

sub nothing_to_read {
    my ($sock) = @_;
    vec(my $rin = '', fileno $sock, 1) = 1;
    return !select($rin, undef, undef, 0.2);
}

subtest 'a trickling body does not hold the worker' => sub {
    my $slow = $server->connect;
    setsockopt $slow, IPPROTO_TCP, TCP_NODELAY, 1;
    syswrite $slow, "POST /slow HTTP/1.1\r\n${H}Content-Length: 40\r\n\r\n0123456789";
    for my $i (1 .. 3) {
        my $c = $server->connect;
        syswrite $c, "GET /other$i HTTP/1.1\r\n${H}\r\n";
        my $res = read_response($c, timeout => 5);
        is $res && $res->{status}, 200, "another client is served meanwhile ($i)";
        syswrite $slow, 'abcdefghij' if $i < 3;    # a little more each time
    }
    ok nothing_to_read($slow), 'the slow request is not answered yet';
    unlike hits($server), qr{/slow}, 'nor did it reach the app';
    syswrite $slow, 'ABCDEFGHIJ';
    my $res = read_response($slow, timeout => 5);
    is $res && $res->{status}, 200, 'served once its body is complete';
    like hits($server), qr{^POST /slow 40$}m, "the app read all 40 bytes";
};

subtest 'a body that stops coming' => sub {
    my $stalled = $server->connect;
    syswrite $stalled, "POST /stalled HTTP/1.1\r\n${H}Content-Length: 30\r\n\r\n0123456789";
    my $c = $server->connect;
    syswrite $c, "GET /meanwhile HTTP/1.1\r\n${H}\r\n";
    my $res = read_response($c, timeout => 5);
    is $res && $res->{status}, 200, 'another client is served meanwhile';
    my ($got, $how) = read_until_close($stalled, 6);
    my $timeout = parse_response($got);
    is $timeout && $timeout->{status_line}, 'HTTP/1.1 408 Request Timeout', '408 after --read-timeout';
    is $how, 'eof', 'then closed';
    unlike hits($server), qr{/stalled}, 'the app never ran';
};

subtest 'a body split from its head by a pipelined request' => sub {
    my $c = $server->connect;
    setsockopt $c, IPPROTO_TCP, TCP_NODELAY, 1;
    syswrite $c, "GET /first HTTP/1.1\r\n${H}\r\nPOST /second HTTP/1.1\r\n${H}Content-Length: 6\r\n\r\nab";
    my $buf = '';
    my $first = read_response($c, buffer => \$buf);
    is $first && $first->{status}, 200, 'the first is answered';
    syswrite $c, 'cdef';
    my $second = read_response($c, buffer => \$buf);
    is $second && $second->{status}, 200, 'the second once its body is in';
    like hits($server), qr{^POST /second 6$}m, 'with all of it';
};
# the body in three pieces, with other clients served between them, then
# the rest with a request pipelined behind it
for my $framing ('content-length', 'chunked') {
    subtest "a large body, trickled ($framing)" => sub {
        my $body = join '', map { chr(($_ * 7) % 256) } 1 .. 300_000;
        my ($head, $wire);
        if ($framing eq 'chunked') {
            $head = "PUT /big HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n";
            $wire = join('', map { sprintf("%x\r\n%s\r\n", length $_, $_) } unpack '(a7000)*', $body) . "0\r\n\r\n";
        } else {
            $head = "PUT /big HTTP/1.1\r\n${H}Content-Length: " . length($body) . "\r\n\r\n";
            $wire = $body;
        }
        my $slow = $sums->connect;
        setsockopt $slow, IPPROTO_TCP, TCP_NODELAY, 1;
        syswrite $slow, $head;
        my $off = 0;
        for my $i (1 .. 3) {
            $off += syswrite $slow, $wire, int(length($wire) / 3) - 1, $off;    # all but a byte of a third
            my $c = $sums->connect;
            syswrite $c, "GET /other$i HTTP/1.1\r\n${H}\r\n";
            my $res = read_response($c, timeout => 5);
            is $res && $res->{body}, '0 ' . Digest::MD5::md5_hex(''), "another client is served meanwhile ($i)";
        }
        ok nothing_to_read($slow), 'the large body is not answered while incomplete';
        syswrite $slow, substr($wire, $off) . "GET /next HTTP/1.1\r\n${H}\r\n";
        my $buf = '';
        my $res = read_response($slow, buffer => \$buf, timeout => 5);
        is $res && $res->{body}, length($body) . ' ' . Digest::MD5::md5_hex($body), 'the app got every byte';
        my $next = read_response($slow, buffer => \$buf, timeout => 5);
        is $next && $next->{status}, 200, 'and the request pipelined behind it is served';
    };
}
done_testing;
