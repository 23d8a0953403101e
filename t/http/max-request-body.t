# --max-request-body: a Content-Length over the limit is 413 at once,
# before any of the body is read and without a 100 Continue; a chunked
# body gets 413 as soon as it passes the limit. A client that keeps sending
# its body after the 413 still reads the answer (the server drops its
# input for a moment before closing, instead of resetting).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Kamado::Test qw(read_response);
use Kamado::Test::HTTP qw(hit_server hits read_until_close parse_response);

my $server = hit_server(args => ['--max-request-body', 1024]);
my $H = "Host: x\r\n";

sub body_of { 'b' x $_[0] }

subtest 'at the limit' => sub {
    my $c = $server->connect;
    syswrite $c, "POST /at HTTP/1.1\r\n${H}Content-Length: 1024\r\n\r\n" . body_of(1024);
    my $res = read_response($c);
    is $res && $res->{status}, 200, '1024 bytes are served';
    like hits($server), qr{^POST /at 1024$}m, 'the app read them all';
};

subtest 'one byte over, head only' => sub {
    my $c = $server->connect;
    syswrite $c, "POST /over HTTP/1.1\r\n${H}Content-Length: 1025\r\n\r\n";
    my ($got, $how) = read_until_close($c, 5);
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 413 Content Too Large', '413 before the body is sent';
    is $res && $res->{headers}{connection}, 'close', 'Connection: close';
    is $how, 'eof', 'closed';
    unlike hits($server), qr{/over}, 'the app never ran';
};

subtest 'a client that sends a large body anyway reads the 413' => sub {
    my $c = $server->connect;
    setsockopt $c, IPPROTO_TCP, TCP_NODELAY, 1;
    my $body = 'x' x (4 * 1024 * 1024);
    my $req = "PUT /big HTTP/1.1\r\n${H}Content-Length: " . length($body) . "\r\n\r\n";
    syswrite $c, $req;
    # keep sending while the server answers and lingers; a reset would
    # typically destroy the 413 before it is read
    $c->blocking(0);
    my ($off, $got, $eof) = (0, '', 0);
    my $deadline = time + 10;
    while (!$eof && time < $deadline) {
        vec(my $rin = '', fileno $c, 1) = 1;
        my $win = $off < length $body ? $rin : undef;
        select(my $r = $rin, my $w = $win, undef, 0.5) or next;
        if (vec($r, fileno $c, 1)) {
            my $n = sysread $c, $got, 65536, length $got;
            $eof = 1 if !$n;
        }
        if ($win && vec($w, fileno $c, 1)) {
            my $n = syswrite $c, $body, 65536, $off;
            $off += $n if $n;
            $off = length $body if !defined $n && !$!{EAGAIN};    # the server has closed
        }
    }
    my $res = parse_response($got);
    is $res && $res->{status}, 413, 'the 413 arrived whole' or diag explain $got;
    unlike hits($server), qr{/big}, 'the app never ran';
};

subtest 'chunked, over the limit' => sub {
    my $c = $server->connect;
    my $chunk = sprintf("%x\r\n%s\r\n", 600, 'c' x 600);
    syswrite $c, "POST /chunked HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n" . $chunk x 2 . "0\r\n\r\n";
    my ($got, $how) = read_until_close($c, 5);
    my $res = parse_response($got);
    is $res && $res->{status}, 413, '413 once 1200 decoded bytes pass 1024';
    is $how, 'eof', 'closed';
    unlike hits($server), qr{/chunked}, 'the app never ran';
};

subtest 'chunked, at the limit' => sub {
    my $c = $server->connect;
    my $chunk = sprintf("%x\r\n%s\r\n", 512, 'c' x 512);
    syswrite $c, "POST /chunked-ok HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n" . $chunk x 2 . "0\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{status}, 200, "served" or diag explain $res, $server->log;
    like hits($server), qr{^POST /chunked-ok 1024$}m, 'the app read 1024 bytes';
};

subtest 'Expect: 100-continue over the limit' => sub {
    my $c = $server->connect;
    syswrite $c, "POST /expect HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Length: 2000\r\n\r\n";
    my ($got, $how) = read_until_close($c, 5);
    like $got, qr{\AHTTP/1\.1 413 }, 'a 413, with no 100 Continue before it';
    unlike hits($server), qr{/expect}, 'the app never ran';
};
done_testing;
