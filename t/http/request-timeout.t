# --request-timeout: an app past the deadline is interrupted (a die) and
# the client gets 504, the log naming the request, and the worker goes on;
# an app that swallows the die is ended 2 s later, its client gets its 504
# all the same (the worker's last words: t/http/last-words.t), and the
# generation replaces the worker. Other requests are served meanwhile.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response);

my $server = start_server(workers => 2, args => ['--request-timeout', 1], app => <<'APP');
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    if ($p eq '/slow') {
        sleep 1 for 1 .. 10;
    } elsif ($p eq '/stubborn') {
        for (1 .. 10) { eval { sleep 1 } }    # swallows the soft stop
    }
    [200, ['Content-Type' => 'text/plain'], [$$]];
}
APP

subtest 'an app past the deadline gets a 504' => sub {
    my $t0 = Time::HiRes::time();
    my $slow = $server->send_get('/slow');
    my $fast = read_response($server->send_get('/fast'), timeout => 5);
    is $fast && $fast->{status}, 200, 'another request is served meanwhile';
    my ($got) = read_until_close($slow, 10);
    my $took = Time::HiRes::time() - $t0;
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 504 Gateway Timeout', 'answered 504' or diag explain $got;
    cmp_ok $took, '>=', 0.9, sprintf 'at the deadline (%.2f s)', $took;
    cmp_ok $took, '<', 2.5, 'not when the app would have finished (10 s)';
    like $server->log, qr{GET /slow HTTP/1\.1: past --request-timeout \(1 s\): interrupting it}, 'the log names the request';
    unlike $server->log, qr/exited with/, 'the worker lives on';
};

subtest 'an app that swallows the soft stop is killed' => sub {
    my $t0 = Time::HiRes::time();
    my $stubborn = $server->send_get('/stubborn');
    my ($got, $how) = read_until_close($stubborn, 10);
    my $took = Time::HiRes::time() - $t0;
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 504 Gateway Timeout', 'answered 504' or diag explain $got;
    is $how, 'eof', 'then the connection closes';
    cmp_ok $took, '>=', 2.9, sprintf 'at the deadline plus the 2 s grace (%.2f s)', $took;
    cmp_ok $took, '<', 5, 'not when the app would have finished (10 s)';
    my $deadline = Time::HiRes::time() + 5;
    Time::HiRes::sleep(0.02) until $server->log =~ /killed by --request-timeout/ || Time::HiRes::time() > $deadline;
    like $server->log, qr{GET /stubborn HTTP/1\.1: past --request-timeout \(1 s\): interrupting it}, 'the log names the request';
    like $server->log, qr/worker \d+ exited with signal \d+ \(killed by --request-timeout\)/, 'the generation says why the worker died';
    my $after = read_response($server->send_get('/after'), timeout => 5);
    is $after && $after->{status}, 200, 'and requests are served after';
};
done_testing;
