# Slow request bodies: a client sends a head with Content-Length 1000 and
# then the body a byte at a time. --read-timeout 2 is the longest pause
# allowed between two pieces of a body: a client that stalls longer gets
# 408 and the close, and the worker is free again at once. Trickling
# clients must not tie up the workers meanwhile: with more slow bodies than
# workers, a normal client is still served. --min-body-rate is off here,
# since it cuts off a body trickled a byte a second by design (its own
# test is t/http/min-body-rate.t).
#
# The slow clients and the normal one are bench/lib/Kamado/Bench/SlowClient.pm
# (bench/slowclient's engine); the assertion on latency is a loose p99 < 1 s
# (a worker blocked by a slow body would mean seconds), the real figures
# are measured by bench/slow-attacks.
use strict;
use warnings;
use lib 't/lib', 'bench/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Bench::SlowClient ();

my $TIMEOUT = 2;
my $server = start_server(workers => 2, args => ['--read-timeout', $TIMEOUT, '--min-body-rate', 0], app => <<'APP');
sub {
    my $env = shift;
    my $in = $env->{'psgi.input'};
    my $body = do { local $/; <$in> } // '';
    [200, ['Content-Type' => 'text/plain'], ['got ' . length $body]];
}
APP

# A normal request on a new connection: (status or undef, seconds taken).
sub normal_request {
    my $t0 = Time::HiRes::time();
    my $res = read_response($server->send_get('/'), timeout => 5);
    return ($res && $res->{status}, Time::HiRes::time() - $t0);
}

subtest 'a body that stalls gets 408 at the read timeout' => sub {
    # 1000 announced, 6 bytes sent half a second apart, then nothing
    my $res = Kamado::Bench::SlowClient::run(
        mode => 'body', port => $server->port, conns => 1, body_length => 1000,
        interval => 0.5, pieces => 6, once => 1, duration => 12,
        probe => { count => 25, rate => 10, timeout => 5 },
    );
    my ($attack, $probe) = @$res{qw(attack probe)};
    is $probe->{ok}, 25, 'a normal client is served meanwhile' or diag explain $probe->{error_kinds};
    cmp_ok $probe->{p99}, '<', 1000, "p99 $probe->{p99} ms";
    is $attack->{server_closes}, 1, 'the server closed the slow connection' or return;
    my $close = $attack->{closes}[0];
    is $close->{status}, 408, 'after answering 408';
    is $close->{how}, 'eof', 'an orderly close';
    # pauses are checked to within a second (as the head deadline is)
    cmp_ok $close->{quiet}, '>=', $TIMEOUT - 0.1, sprintf 'not before the client was quiet for %s s (%.2f s)', $TIMEOUT, $close->{quiet};
    cmp_ok $close->{quiet}, '<=', $TIMEOUT + 2, 'nor more than 2 s later';
    my ($status, $took) = normal_request();
    is $status, 200, 'a normal request right after is answered';
    cmp_ok $took, '<', 1, sprintf 'promptly (%.3f s)', $took;
};

subtest 'more slow bodies than workers' => sub {
    # 4 bodies trickling a byte every half second for 6 s, on 2 workers
    my $res = Kamado::Bench::SlowClient::run(
        mode => 'body', port => $server->port, conns => 4, body_length => 1000,
        interval => 0.5, duration => 6,
        probe => { count => 40, rate => 10, timeout => 5 },
    );
    my ($attack, $probe) = @$res{qw(attack probe)};
    is $attack->{connected}, 4, '4 slow bodies';
    is $probe->{ok}, 40, 'a normal client is served meanwhile' or diag explain $probe->{error_kinds};
    cmp_ok $probe->{p99} // 1e9, '<', 1000, sprintf 'p99 %s ms (p50 %s)', $probe->{p99} // '-', $probe->{p50} // '-';
    is $attack->{server_closes}, 0, 'a client that keeps sending is not cut off';
    # the attack closed its connections at its end: the server is all free
    my ($status, $took) = normal_request();
    is $status, 200, 'a normal request afterwards is answered';
    cmp_ok $took, '<', 1, sprintf 'promptly (%.3f s)', $took;
};

done_testing;
