# The status process takes the supervisor's word when no request comes:
# after a HUP, with no status request made, it comes to map exactly the
# scoreboards (memfds) the live generations map, the new one's in, the
# old one's let go (from /proc/PID/maps: the memfd's inode).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(eventually);
use Kamado::Test::Status qw(status_server);

my $server = status_server(workers => 1, app => 'sub { [200, [], ["ok"]] }');

sub cmdline { open my $fh, '<', "/proc/$_[0]/cmdline" or return ''; local $/; (<$fh> // '') =~ tr/\0/ /r }
sub boards {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/maps" or return ();
    my %inode = map { ((split ' ')[4] => 1) } grep { m{/memfd:kamado-scoreboard} } <$fh>;
    return sort keys %inode;
}
my ($status) = grep { cmdline($_) =~ /^kamado status/ } $server->generations;
ok $status, 'the status process, a child of the supervisor';
my ($gen1) = grep { cmdline($_) =~ /^kamado generation 1/ } $server->generations;
is_deeply [boards($status)], [boards($gen1)], 'it maps generation 1\'s board';

kill HUP => $server->pid;
ok eventually(sub { !kill 0, $gen1 }), 'generation 1 replaced and gone';
my ($gen2) = grep { cmdline($_) =~ /^kamado generation 2/ } $server->generations;
ok eventually(sub { my @b = boards($gen2); @b == 1 && join(' ', boards($status)) eq "@b" }),
    'with no status request: it maps generation 2\'s board, and no longer 1\'s'
    or diag "status: @{[boards($status)]}; generation 2: @{[boards($gen2)]}";
is $server->stop, 0, 'the server stops cleanly';
done_testing;
