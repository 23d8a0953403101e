# Kamado::Hooks' events, as users register them: a -M module (loaded in
# the supervisor) with on(worker_start) and on(worker_exit), code given
# to --worker-init that registers a worker_exit of its own, and off. Each
# worker runs the start subs before it serves; the exit subs as it exits,
# with 0 and --graceful-timeout after TERM, with 1 (and 0 s) on INT; a sub that
# dies is logged and the worker serves anyway; without --worker-init, the
# module's start subs and those an app loaded in each worker registers
# run too; --workers 0 emits both.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);

Kamado::Test::allow_errors(qr/at worker start: the cache is cold/);

my $dir = File::Temp::tempdir(CLEANUP => 1);
mkdir "$dir/lib" or die;
open my $fh, '>', "$dir/lib/KamadoHookEvents.pm" or die;
print $fh <<"PM";
package KamadoHookEvents;
use Kamado::Hooks;
sub note { open my \$fh, '>>', "$dir/\$_[0]" or die; print \$fh "\$\$ \$_[1]\\n"; close \$fh }
Kamado::Hooks->on(worker_start => sub { \$main::STARTED = \$\$; note(events => 'start') });
Kamado::Hooks->on(worker_start => sub { die "the cache is cold\\n" }) if \$ENV{KAMADO_TEST_DIE};
Kamado::Hooks->on(worker_exit => sub { note(events => "exit \@_") });
my \$gone = Kamado::Hooks->on(worker_start => sub { note(events => 'removed') });
Kamado::Hooks->off(worker_start => \$gone);
1;
PM
close $fh;
my $init = qq{Kamado::Hooks->on(worker_exit => sub { KamadoHookEvents::note(events => "init-exit \$_[0]") })};
my $app = 'sub { [200, ["Content-Type" => "text/plain"], ["started=" . ($main::STARTED // "none") . " pid=$$"]] }';
my @args = ('-I', "$dir/lib", '-M', 'KamadoHookEvents', '--graceful-timeout', 7, '--worker-init', $init);
sub events { open my $fh, '<', "$dir/events" or return (); chomp(my @l = <$fh>); @l }
sub of { my ($pid) = @_; [map { /^$pid (.*)/ ? $1 : () } events()] }

# TERM: each worker started, then exited gracefully
my $server = start_server(workers => 2, app => $app, args => \@args);
my $both = eventually(sub {
    grep({ /start$/ } events()) == 2;
});
ok $both, 'worker_start: run in both workers' or diag join "\n", events();
my @workers = sort $server->workers;
my $res = read_response($server->send_get('/'));
my ($started, $pid) = ($res ? $res->{body} : '') =~ /\Astarted=(\S+) pid=(\d+)\z/;
is $started, $pid, 'worker_start: run in the serving process, before it served';
ok !grep({ /removed/ } events()), 'off: a sub taken off is not run';
is $server->stop, 0, 'stops cleanly';

for my $w (@workers) {
    is_deeply of($w), ['start', 'exit 0 7', 'init-exit 0'],
        "worker $w: start, then at TERM the exit subs, with 0 and 7";
}

# INT: the exit subs are told it is at once
unlink "$dir/events";
$server = start_server(workers => 1, app => $app, args => \@args);
ok eventually(sub {
    grep { /start$/ } events();
    }),
    'a worker started';
my ($worker) = $server->workers;
$server->stop('INT');
ok eventually(sub { @{ of($worker) } == 3 }), 'INT: the exit subs ran';
is_deeply of($worker), ['start', 'exit 1 0', 'init-exit 1'], 'INT: with 1, at once, and no time to take';

# a worker_start sub that dies: logged, the worker serves
unlink "$dir/events";
{
    local $ENV{KAMADO_TEST_DIE} = 1;
    $server = start_server(workers => 1, app => $app, args => \@args);
}
$res = read_response($server->send_get('/'));
like $res && $res->{body}, qr/\Astarted=\d+ pid=\d+\z/, 'a worker_start sub that dies: the worker serves anyway';
like $server->log, qr/\[error\] worker \d+(?: \[\S+\])?: at worker start: the cache is cold$/m, 'and it is logged';
is $server->stop, 0, 'stops cleanly';

# without --worker-init: the start subs of a -M module still run, and
# so do those an app loaded in each worker (--no-preload) registers
unlink "$dir/events";
$server = start_server(workers => 2, app => $app, args => ['-I', "$dir/lib", '-M', 'KamadoHookEvents']);

sub started_twice {
    my ($tag) = @_;
    return eventually(sub {
        grep({ /$tag$/ } events()) == 2;
    });
}
ok started_twice('start'), 'no --worker-init: worker_start run in both workers' or diag join "\n", events();
is $server->stop, 0, 'stops cleanly';
unlink "$dir/events";
my $hook = q{Kamado::Hooks->on(worker_start => sub { KamadoHookEvents::note(events => 'app-start') })};
my $loads_hooks = "use KamadoHookEvents (); $hook; $app";
$server = start_server(workers => 2, app => $loads_hooks, args => ['-I', "$dir/lib", '--no-preload']);
ok started_twice('app-start'), '--no-preload: the start subs the app registers as each worker loads it run there'
    or diag join "\n", events();
is $server->stop, 0, 'stops cleanly';

# --workers 0: the process itself emits both
unlink "$dir/events";
my $single = start_server(workers => 0, app => $app, args => \@args);
is_deeply of($single->pid), ['start'], '--workers 0: worker_start before it serves';
is $single->stop, 0, '--workers 0: stops cleanly';
is_deeply of($single->pid), ['start', 'exit 0 7', 'init-exit 0'], '--workers 0: worker_exit as it stops';
done_testing;
