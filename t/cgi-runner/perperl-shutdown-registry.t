# Registry mode: a script's PersistentPerl shutdown handlers run when its
# worker ends, after its last request, however it ends: recycled after
# --max-reqs-per-child, sent TERM by its generation (as autoscaling's
# idle retirement and TTOU do), replaced with its generation after a HUP.
# The handler sees the variables the script kept (its handle).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server wait_until);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $out = File::Temp::tempdir(CLEANUP => 1);
sub lines {
    open my $fh, '<', "$out/shutdown" or return ();
    return map { chomp; $_ } <$fh>;
}
put_script($root, 'handler.cgi', <<"CGI");
#!/usr/bin/perl
use PersistentPerl;
our (\$pp, \$kept);
if (!defined \$pp) {
    \$pp = PersistentPerl->new;
    \$kept = \$pp;
    \$pp->add_shutdown_handler(sub {
        open my \$f, '>>', "$out/shutdown";
        print \$f "\$\$ ", (\$kept ? 'kept' : 'lost'), "\\n";
    });
}
print "Content-Type: text/plain\\n\\npid=\$\$\\n";
CGI
sub pid_of { get_script($_[0], 'handler.cgi')->{body} =~ /pid=(\d+)/ ? $1 : 0 }

# recycling
{
    my $server = start_server(no_app => 1, workers => 1,
        args => ['--cgi-bin', $root, '--cgi-mode', 'registry', '--max-reqs-per-child', 2]);
    my @pids = map { pid_of($server) } 1 .. 2;
    is $pids[0], $pids[1], 'two requests in one worker';
    wait_until { lines() } 'recycled after --max-reqs-per-child: the handler ran';
    is_deeply [lines()], ["$pids[0] kept"], 'once, in the recycled worker, with what the script kept';
    my $new = pid_of($server);
    isnt $new, $pids[0], 'a new worker serves';
    unlink "$out/shutdown";
    is $server->stop, 0, 'TERM: exit 0';
    is_deeply [lines()], ["$new kept"], 'the server stopped: the new worker\'s handler ran';
    unlink "$out/shutdown";
}

# TERM to a worker, as its generation retires an idle one; HUP
{
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'registry']);
    my $first = pid_of($server);
    kill TERM => $first;
    wait_until { lines() } 'a worker sent TERM: the handler ran';
    is_deeply [lines()], ["$first kept"], 'in that worker';
    unlink "$out/shutdown";
    my $second = pid_of($server);
    isnt $second, $first, 'its replacement serves';
    kill HUP => $server->pid;
    wait_until { lines() } 'HUP: the handler ran in the old generation\'s worker';
    is_deeply [lines()], ["$second kept"], 'in that worker';
    isnt pid_of($server), $second, 'the new generation serves';
    is $server->stop, 0, 'TERM: exit 0';
    unlike $server->log, qr/died|handler\.cgi/, 'nothing wrong in the log';
}
done_testing;
