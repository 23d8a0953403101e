# --startup FILE: run once in the generation (its pid), before the app
# loads (the app sees at load time what it set) and before the workers
# fork (they see its globals); a HUP runs it again in the new generation,
# so an edit takes effect, and one that dies leaves the old one serving.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response wait_until);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/broken on purpose/);

my $dir = File::Temp::tempdir(CLEANUP => 1);
sub startup_file {
    my ($value) = @_;
    open my $fh, '>', "$dir/startup.pl.new" or die;
    print $fh "open my \$fh, '>>', '$dir/ran' or die; print \$fh \"\$\$\\n\"; close \$fh;\n",
        "\$main::STARTUP = '$value';\n1;\n";
    close $fh;
    rename "$dir/startup.pl.new", "$dir/startup.pl" or die;
}
sub ran { open my $fh, '<', "$dir/ran" or return (); chomp(my @pids = <$fh>); @pids }
startup_file('one');
my $server = start_server(workers => 2, args => ['--startup', "$dir/startup.pl"], app => <<'APP');
my $at_load = $main::STARTUP // 'unset';
sub { [200, ['Content-Type' => 'text/plain'], ["load=$at_load now=$main::STARTUP pid=$$"]] }
APP
sub get { my $res = read_response($server->send_get('/')); $res ? $res->{body} : '' }

my @first = $server->generations;
is_deeply [ran()], \@first, 'run once, in the generation';
like get(), qr/\Aload=one now=one pid=(\d+)\z/, 'before the app loaded, and the workers see what it set';
my ($pid) = get() =~ /pid=(\d+)/;
isnt $pid, $first[0], 'served by a worker, which did not run it';

startup_file('two');
kill HUP => $server->pid;
wait_until { $server->log =~ /generation 2 serves/ } 'HUP: a new generation serves';
my @second = grep { $_ != $first[0] } $server->generations;
is_deeply [ran()], [@first, @second], 'the new generation ran it again';
wait_until { get() =~ /\Aload=two now=two / } 'and the edit took effect';

# a startup file that dies after a HUP: logged, the serving generation goes on
open my $fh, '>', "$dir/startup.pl" or die;
print $fh "die qq{broken on purpose\\n};\n";
close $fh;
kill HUP => $server->pid;
wait_until { $server->log =~ /generation 3 failed to start \(--startup \Q$dir\E\/startup\.pl: broken on purpose\); generation 2 keeps serving/ }
    'HUP with a startup file that dies: logged, naming it';
like get(), qr/\Aload=two now=two /, 'and generation 2 still serves';
is $server->stop, 0, 'stops cleanly';
done_testing;
