# HUPs while long requests are in flight do not pile up generations, nor
# cut requests off: at most two old ones drain at once, and a HUP that
# would make a third waits (the log says so) until one of them has
# exited; then the new generation loads and serves. Every slow request
# finishes with its answer; no generation is killed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::HTTP qw(wait_for_file slurp);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/generations are draining/);

my $dir = tempdir(CLEANUP => 1);
local $ENV{KT_DIR} = $dir;
my $server = start_server(workers => 1, args => ['--graceful-timeout', 60], app => <<'APP');
my $dir = $ENV{KT_DIR};
sub {
    my $env = shift;
    if ($env->{PATH_INFO} =~ m{^/slow/(\d+)}) {
        open my $fh, '>', "$dir/in.$1" or die;
        close $fh;
        # until the test releases it (60 s at most)
        for (1 .. 600) { last if -e "$dir/release.$1"; select undef, undef, undef, 0.1 }
    }
    [200, ['Content-Type' => 'text/plain'], ["done $$"]];
}
APP

my $most = 0;
# generation processes, not counting those killed and not yet reaped
sub count {
    my $n = grep { (slurp("/proc/$_/stat") // '') !~ /^\d+ \(.*\) Z/s } $server->generations;
    $most = $n if $n > $most;
    return $n;
}
sub release { open my $fh, '>', "$dir/release.$_[0]" or die; close $fh }
my @slow;
for my $i (1 .. 3) {
    my $c = $server->connect;
    syswrite $c, "GET /slow/$i HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    push @slow, $c;
    ok wait_for_file("$dir/in.$i"), "slow request $i is in generation ${i}'s app";
    kill HUP => $server->pid;
    my $next = $i + 1;
    wait_until { count(); $server->log =~ /generation $next serves/ } "HUP $i: generation $next serves" if $i < 3;
}
wait_until { $server->log =~ /HUP: 2 generations are still finishing their requests; the new generation starts once one of them has exited/ }
    'HUP 3: it waits for one of the two draining generations';
kill HUP => $server->pid;    # (one more, meanwhile: the same wait)
is count(), 3, 'the serving generation and two draining ones, no fourth';

release(1);
my $res = read_response($slow[0], timeout => 30);
ok $res && $res->{status} == 200 && $res->{body} =~ /^done/, 'slow request 1 completes';
wait_until { count(); $server->log =~ /generation 4 serves/ } 'once generation 1 has exited, generation 4 loads and serves';
like $server->log, qr/HUP: a draining generation has exited; loading the application afresh/, 'the log says why it loads now';
release($_) for 2, 3;
for my $i (2, 3) {
    $res = read_response($slow[ $i - 1 ], timeout => 30);
    ok $res && $res->{status} == 200 && $res->{body} =~ /^done/, "slow request $i completes";
}
wait_until { count() == 1 } 'the drained generations exit';
ok $most <= 3, "never more than 3 generation processes (counted $most)";
unlike $server->log, qr/killing generation/, 'no generation was killed';
unlike $server->log, qr/generation 5/, 'the HUP sent while waiting made no fifth generation';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
