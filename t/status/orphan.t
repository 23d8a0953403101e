# A supervisor killed outright (KILL: no shutdown of its own) leaves no
# status process behind: it gets TERM when its parent dies, and its socket
# to the supervisor, now closed, does not keep it busy.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(eventually);
use Kamado::Test::Status qw(status_server);

my $server = status_server(workers => 1, app => 'sub { [200, [], ["ok"]] }');
sub cmdline { open my $fh, '<', "/proc/$_[0]/cmdline" or return ''; local $/; (<$fh> // '') =~ tr/\0/ /r }
my @children = $server->generations;
my ($status) = grep { cmdline($_) =~ /^kamado status/ } @children;
ok $status, 'a status process';
kill KILL => $server->pid;
waitpid $server->pid, 0;
ok eventually(sub { !kill 0, $status }, 10), 'the status process exits too';
kill KILL => grep { kill 0, $_ } @children, $status;    # (whatever is left, by pid)
done_testing;
