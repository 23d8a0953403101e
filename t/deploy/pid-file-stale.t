# A --pid-file left by a kamado that died (a pid no process has), or
# naming a live process that is not kamado (its pid reused), or holding
# garbage, is replaced at start.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);

my $dir = File::Temp->newdir;
my $file = "$dir/kamado.pid";
sub slurp { open my $fh, '<', $_[0] or return undef; local $/; <$fh> }
sub spit { open my $fh, '>', $_[0] or die $!; print $fh $_[1]; close $fh }

# a pid that was used and is free again: a child that has exited
my $dead = fork // die;
POSIX::_exit(0) unless $dead;
waitpid $dead, 0;
# a live process that is not kamado
my $sleeper = fork // die;
if (!$sleeper) { exec 'sleep', 30 or POSIX::_exit(1) }

for my $case (["a dead process's pid", "$dead\n"], ['a live pid that is not kamado', "$sleeper\n"],
              ['garbage', "not a pid\n"]) {
    my ($what, $content) = @$case;
    spit($file, $content);
    my $server = start_server(app => 'sub { [200, [], ["ok"]] }', args => ['--pid-file', $file]);
    is slurp($file), $server->pid . "\n", "$what: replaced by the new supervisor's pid";
    is $server->stop, 0, "$what: clean stop";
    ok !-e $file, "$what: removed at exit";
}
kill KILL => $sleeper;
waitpid $sleeper, 0;
done_testing;
