# A draining generation that cannot end itself (stopped here with SIGSTOP,
# so its own --graceful-timeout never fires) is killed by the supervisor
# with its workers 5 s past --graceful-timeout, and the log says so; the
# request it held is cut off, the new generation serves throughout.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::HTTP qw(wait_for_file read_until_close slurp);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/still draining \d+ s after TERM/);

my $dir = tempdir(CLEANUP => 1);
local $ENV{KT_DIR} = $dir;
my $server = start_server(workers => 1, args => ['--graceful-timeout', 1], app => <<'APP');
my $dir = $ENV{KT_DIR};
sub {
    my $env = shift;
    if ($env->{PATH_INFO} eq '/slow') {
        open my $fh, '>', "$dir/in" or die;
        close $fh;
        sleep 1 for 1 .. 60;
    }
    [200, ['Content-Type' => 'text/plain'], ["ok $$"]];
}
APP

my ($old) = $server->generations;
my ($old_worker) = $server->workers;
# a failure must not leave the stopped generation behind
END { kill KILL => grep { defined } $old, $old_worker }
# (a zombie has exited)
sub gone { (slurp("/proc/$_[0]/stat") // '') !~ /^\d+ \(.*\) [^Z]/s }
my $slow = $server->connect;
syswrite $slow, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
ok wait_for_file("$dir/in"), 'a slow request is in generation 1';
kill STOP => $old;
kill HUP => $server->pid;
wait_until { $server->log =~ /generation 2 serves/ } 'HUP: generation 2 serves, generation 1 is told to drain';
my $t0 = Time::HiRes::time();
wait_until { $server->log =~ /killing generation 1 and its workers: still draining \d+ s after TERM \(--graceful-timeout 1\)/ }
    'the supervisor kills generation 1 past its deadline';
my $took = Time::HiRes::time() - $t0;
cmp_ok $took, '<', 10, sprintf 'about 6 s after TERM (%.1f s)', $took;
wait_until { gone($old) } 'generation 1 is gone';
wait_until { gone($old_worker) } 'and its worker';
my ($got, $how) = read_until_close($slow, 5);
ok $got eq '' && $how ne 'timeout', "the slow request is cut off ($how)";
my $res = read_response($server->send_get('/'), timeout => 5);
ok $res && $res->{status} == 200, 'generation 2 serves';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
