# Slowloris: 500 connections each send a request head one byte a second
# and never finish it. With --header-timeout 3 every one of them must get
# 408 and the close at its deadline (3 s after it was accepted, plus up to
# a second: the deadline sweep runs once a second), while a normal client
# is served as if nothing happened: waiting heads cost a descriptor in a
# worker's loop, never the worker.
#
# The attack and the normal client are bench/lib/Kamado/Bench/SlowClient.pm,
# the engine of bench/slowclient: the attack runs in a child process, the
# normal client here. The test asserts p99 < 1 s only, which a blocked
# worker would miss by seconds and a loaded 2-core CI machine still meets;
# the real latency under attack (milliseconds) is measured by
# bench/slow-attacks, not asserted here.
use strict;
use warnings;
use lib 't/lib', 'bench/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Bench::SlowClient ();

my $TIMEOUT = 3;
my $server = start_server(workers => 2, args => ['--header-timeout', $TIMEOUT],
    app => q{sub { [200, ['Content-Type' => 'text/plain', 'Content-Length' => 2], ['ok']] }});

# 8 s: the first 500 are closed at 3-4 s and replaced; the replacements
# are closed at 6-8 s or are still younger than their deadline at the end.
my $res = Kamado::Bench::SlowClient::run(
    mode => 'headers', port => $server->port, conns => 500, interval => 1, duration => 8,
    probe => { count => 100, rate => 25, timeout => 5 },
);
my ($attack, $probe) = @$res{qw(attack probe)};

is $attack->{connected}, $attack->{opened}, "every attacking connection was accepted ($attack->{opened})";
cmp_ok $attack->{connected}, '>=', 500, '500 at once';
is_deeply $attack->{connect_errors}, {}, 'no connect errors';

subtest 'a normal client is served meanwhile' => sub {
    is $probe->{count}, 100, '100 requests';
    is $probe->{ok}, 100, 'all answered 200' or diag explain $probe->{error_kinds};
    cmp_ok $probe->{p99}, '<', 1000, "p99 $probe->{p99} ms (p50 $probe->{p50}, max $probe->{max})";
};

subtest 'the server closes every slow head at its deadline' => sub {
    my @closes = @{ $attack->{closes} };
    cmp_ok scalar @closes, '>=', 500, 'all of the first 500 were closed by the server within 8 s';
    my @early = grep { !defined $_->{age} || $_->{age} < $TIMEOUT - 0.1 } @closes;
    # the sweep runs once a second, so up to a second late by design; one
    # more for a loaded machine (t/slow/idle-keepalive.t saw 2.00002 s)
    my @late  = grep { defined $_->{age} && $_->{age} > $TIMEOUT + 3 } @closes;
    is scalar @early, 0, 'none before the header timeout' or diag explain [ @early[0 .. 2] ];
    is scalar @late, 0, "none later than 3 s after it" or diag explain [ @late[0 .. 2] ];
    is_deeply $attack->{close_status}, { 408 => scalar @closes }, 'each answered 408 Request Timeout first';
    is scalar(grep { $_->{how} ne 'eof' } @closes), 0, 'and closed in order (no reset)';
    diag sprintf 'age at close: min %.2f s, median %.2f s, max %.2f s', @{ $attack->{close_age} }{qw(min p50 max)};
    cmp_ok $attack->{open_at_end_max_age} // 0, '<=', $TIMEOUT + 3,
        sprintf 'none still open past its deadline at the end (%d open, oldest %.2f s)',
        $attack->{open_at_end}, $attack->{open_at_end_max_age} // 0;
};

done_testing;
