# HUPs while long requests are in flight do not pile up generations: at
# most two old ones drain at once, the oldest beyond that is killed with
# its workers (its request is cut off: the connection closes without an
# answer, and the log says so), and the requests of the two kept finish.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::HTTP qw(wait_for_file read_until_close slurp);

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
        for (1 .. 600) { last if -e "$dir/release"; select undef, undef, undef, 0.1 }
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
my @slow;
for my $i (1 .. 5) {
    my $c = $server->connect;
    syswrite $c, "GET /slow/$i HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    push @slow, $c;
    ok wait_for_file("$dir/in.$i"), "slow request $i is in generation ${i}'s app";
    kill HUP => $server->pid;
    my $next = $i + 1;
    wait_until { count(); $server->log =~ /generation $next serves/ } "HUP $i: generation $next serves";
}
wait_until { count() <= 3 } 'the serving generation and two draining ones';
ok $most <= 4, "never more than 4 generation processes (counted $most)";
like $server->log, qr/killing generation $_ and its workers: more than 2 generations are draining/, "generation $_ is killed"
    for 1 .. 3;

for my $i (1 .. 3) {
    my ($got, $how) = read_until_close($slow[ $i - 1 ], 10);
    ok $got eq '' && $how ne 'timeout', "slow request $i: cut off, closed without an answer ($how)";
}
open my $fh, '>', "$dir/release" or die;
close $fh;
for my $i (4, 5) {
    my $res = read_response($slow[ $i - 1 ], timeout => 10);
    ok $res && $res->{status} == 200 && $res->{body} =~ /^done/, "slow request $i completes";
}
wait_until { count() == 1 } 'the drained generations exit';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
