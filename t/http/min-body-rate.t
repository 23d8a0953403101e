# --min-body-rate: a body may take --read-timeout plus one second per
# RATE bytes received, however short each pause, so a trickled body is cut
# off with 408, wherever it is read: in the event loop's buffer (it fits),
# in the loop's temporary file (it does not, or it is chunked), or by the
# worker (after Expect: 100-continue with --expect-to-app, once the app
# asks for it).
# A body at a decent rate is served.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Time::HiRes ();
use Kamado::Test::HTTP qw(hit_server hits parse_response);

my $server = hit_server(args => ['--read-timeout', '2', '--min-body-rate', '100', '--expect-to-app']);

# Sends the head, then $piece bytes every $every seconds, until the server
# answers or closes (or $limit seconds pass). Returns (what came back,
# seconds from the head to the answer).
sub trickle {
    my ($path, $length, $piece, $every, $limit) = @_;
    my $c = $server->connect;
    setsockopt $c, IPPROTO_TCP, TCP_NODELAY, 1;
    my $chunked = $length eq 'chunked';
    my $expect = $length =~ s/^expect //;
    $length = 1_000_000 if $chunked;
    syswrite $c, "POST $path HTTP/1.1\r\nHost: x\r\n" . ($expect ? "Expect: 100-continue\r\n" : '')
        . ($chunked ? "Transfer-Encoding: chunked" : "Content-Length: $length") . "\r\n\r\n";
    my $t0 = Time::HiRes::time();
    my ($got, $sent) = ('', 0);
    while (Time::HiRes::time() - $t0 < $limit) {
        vec(my $rin = '', fileno $c, 1) = 1;
        if (select($rin, undef, undef, $every)) {
            my $n = sysread $c, $got, 65536, length $got;
            $got =~ s{\AHTTP/1\.1 100 Continue\r\n\r\n}{};    # the app asked for the body
            last if !$n || $got =~ /\r\n\r\n/;
            next;
        }
        if ($sent < $length) {
            my $bytes = 'x' x $piece;
            $bytes = sprintf("%x\r\n%s\r\n", $piece, $bytes) if $chunked;
            my $n = syswrite $c, $bytes;
            $sent += $piece if $n;
        }
    }
    my $took = Time::HiRes::time() - $t0;
    # read the rest of the answer, if any
    vec(my $rin = '', fileno $c, 1) = 1;
    sysread $c, $got, 65536, length $got if select($rin, undef, undef, 1);
    return ($got, $took);
}

# 10 bytes every 0.5 s is 20 bytes/s: the allowance, 2 s + bytes/100, runs
# out at about 2.5 s; each pause alone is well inside --read-timeout.
for my $case (['/loop', 1000, 'buffered by the event loop'], ['/spooled', 200_000, 'spooled by the event loop'],
              ['/chunked', 'chunked', 'chunked, spooled by the event loop'],
              ['/worker', 'expect 200000', 'read by the worker (after Expect)']) {
    my ($path, $length, $what) = @$case;
    subtest "a trickled body $what" => sub {
        my ($got, $took) = trickle($path, $length, 10, 0.5, 10);
        my $res = parse_response($got);
        is $res && $res->{status_line}, 'HTTP/1.1 408 Request Timeout', 'answered with 408' or diag explain $got;
        cmp_ok $took, '>=', 2.3, sprintf 'not before the allowance ran out (%.2f s)', $took;
        cmp_ok $took, '<', 6, 'but long before the body could have finished';
        unlike hits($server), qr{\Q$path\E}, 'the app never ran';
    };
}

subtest 'a body at a decent rate' => sub {
    # 300 bytes at 200 bytes/s: done in 1.5 s, inside 2 s + 3 s
    my ($got, $took) = trickle('/steady', 300, 100, 0.5, 10);
    my $res = parse_response($got);
    is $res && $res->{status}, 200, 'served' or diag explain $got;
    like hits($server), qr{^POST /steady 300$}m, 'the app read it all';
};
done_testing;
