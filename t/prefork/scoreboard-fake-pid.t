# Autoscaling with --scoreboard: a pid written into every busy slot of the
# published file (a process the test started, as another user's process
# would be) while idle workers are being retired is never signalled; the
# workers retired are the master's own.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use POSIX ();
use Kamado::Test qw(start_server eventually);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";

my $dir = File::Temp->newdir;
my $file = "$dir/scoreboard";
my $server = start_server(
    args => ['--min-workers', 1, '--max-workers', 3, '--max-worker-idle', 3, '--scoreboard', $file],
    app  => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');

# three workers (TTIN within the bounds), to be retired down to one
for my $n (2, 3) {
    kill TTIN => $server->pid;
    ok eventually(sub { $server->workers == $n }), "$n workers";
}
my %worker = map { ($_ => 1) } $server->workers;

my $victim = fork // die $!;
if (!$victim) {
    exec 'sleep', '60' or POSIX::_exit(111);
}

# the pid field of every slot in use, rewritten until two are retired
my $retired = sub { my @p = $server->log =~ /retiring idle worker (\d+)/g; @p };
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
            $writes++ if syswrite $fh, pack('l', $victim);
        }
    }
    $retired->() >= 2;
}, 30), 'two idle workers retired';
cmp_ok $writes, '>', 0, 'the fake pid was written into the file';

is waitpid($victim, POSIX::WNOHANG()), 0, 'the process whose pid was written is not signalled';
my @retired = $retired->();
ok !(grep { !$worker{$_} } @retired), 'the retired pids are workers the master forked'
    or diag "retired @retired; workers " . join ' ', keys %worker;
kill KILL => $victim;
waitpid $victim, 0;
is $server->stop, 0, 'the server stops cleanly';
done_testing;
