# Autoscaling with --scoreboard: pid -1 (kill(-1) is every process the
# caller may signal) written into every busy slot of the published file
# while idle workers are being retired signals nothing but the workers
# retired. The server runs in a pid namespace of its own (unshare), with
# a sleep process beside it, so that a server that did act on the pid
# could only reach the processes of that namespace: the test checks the
# namespace before it writes -1, and that the sleep survives.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);

plan skip_all => 'needs root and /proc' if $> || !-r "/proc/$$/ns/pid";
plan skip_all => 'needs unshare --pid' if system('unshare --pid --fork --mount-proc true 2>/dev/null') != 0;

my $dir = File::Temp->newdir;
my $file = "$dir/scoreboard";
my $sock = "$dir/k.sock";
my $server = start_server(self_bind => 1, unix => $sock,
    prefix => ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child', 'sh', '-c', 'sleep 300 & exec "$@"', 'sh'],
    args   => ['--listen', $sock, '--min-workers', 1, '--max-workers', 3, '--max-worker-idle', 3,
               '--scoreboard', $file],
    app    => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');

# from outside: unshare -> the supervisor (the namespace's init) -> the
# generation and the sleep -> the workers
sub children {
    my ($ppid) = @_;
    my @kids;
    for my $stat (glob '/proc/[0-9]*/stat') {
        open my $fh, '<', $stat or next;
        my ($pid, $comm, $state, $parent) = (<$fh> // '') =~ /^(\d+) \((.*)\) (\S) (\d+)/s or next;
        push @kids, {pid => $pid, comm => $comm, state => $state} if $parent == $ppid;
    }
    return @kids;
}
my ($supervisor) = children($server->pid);
my @under = children($supervisor->{pid});
my ($sleep) = grep { $_->{comm} eq 'sleep' } @under;
my ($generation) = grep { $_->{comm} ne 'sleep' } @under;
ok $sleep && $generation, 'a sleep beside the server, in its namespace' or BAIL_OUT('no process tree');
my $ns = sub { readlink "/proc/$_[0]/ns/pid" // '' };
isnt $ns->($generation->{pid}), $ns->($$), 'the server is in a pid namespace of its own'
    or BAIL_OUT('refusing to write pid -1 for a server outside a pid namespace');
is $ns->($sleep->{pid}), $ns->($generation->{pid}), 'and the sleep in the same one';
my $workers = sub { scalar grep { $_->{comm} ne 'kamado template' } children($generation->{pid}) };

for my $n (2, 3) {
    kill TTIN => $supervisor->{pid};
    ok eventually(sub { $workers->() == $n }), "$n workers";
}
my $retired = sub { my @p = $server->log =~ /retiring idle worker (\d+)/g; scalar @p };
my $writes = 0;
ok eventually(sub {
    if (open my $fh, '+<:raw', $file) {
        my $head = '';
        sysread $fh, $head, 64;
        # (the sizes from the header: see Kamado::Scoreboard's FILE LAYOUT)
        my ($nslots, $size, $start) = (unpack 'a8 L L L L', $head)[2, 3, 4];
        $nslots //= 0;
        for my $i (0 .. $nslots - 1) {
            my $slot = '';
            sysseek $fh, $start + $size * $i, 0;
            sysread $fh, $slot, $size;
            next unless length $slot == $size && (unpack 'l L L', $slot)[2];    # state: not free
            sysseek $fh, $start + $size * $i, 0;
            $writes++ if syswrite $fh, pack('l', -1);
        }
    }
    $retired->() >= 2;
}, 30), 'two idle workers retired';
cmp_ok $writes, '>', 0, 'pid -1 was written into the file';

my @st = grep { $_->{pid} == $sleep->{pid} } children($supervisor->{pid});
ok @st && $st[0]{state} ne 'Z', 'the sleep is not signalled';
ok eventually(sub { $workers->() == 1 }), 'one worker left';
my $res = read_response($server->send_get('/'));
is $res && $res->{status}, 200, 'and it serves';
unlike $server->log, qr/exited with/, 'no worker was killed';
# TERM to the namespace's init, the supervisor (unshare passes its status on)
kill TERM => $supervisor->{pid};
is $server->wait_exit, 0, 'the server stops cleanly';
done_testing;
