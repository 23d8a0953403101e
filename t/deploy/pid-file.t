# --pid-file: the file holds the supervisor's pid (not a generation's),
# mode 0644, is kept across HUP (a new generation, the same supervisor),
# and is removed after TERM.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response wait_until);

my $dir = File::Temp->newdir;
my $file = "$dir/kamado.pid";
my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }',
    args => ['--pid-file', $file]);
sub slurp { open my $fh, '<', $_[0] or return undef; local $/; <$fh> }

is slurp($file), $server->pid . "\n", 'the file holds the supervisor pid';
my ($generation) = $server->generations;
isnt $generation, $server->pid, '(a generation has another pid)';
is +(stat $file)[2] & 07777, 0644, 'mode 0644';
is_deeply [grep { /^\.kamado\.pid\./ } do { opendir(my $d, $dir) or die; readdir $d }], [], 'no temporary file left';

kill HUP => $server->pid;
wait_until { $server->log =~ /generation 2 serves/ } 'HUP: generation 2 serves';
is slurp($file), $server->pid . "\n", 'HUP keeps the file, with the same pid';

is $server->stop, 0, 'TERM: exit 0';
ok !-e $file, 'the file is removed at exit';
done_testing;
