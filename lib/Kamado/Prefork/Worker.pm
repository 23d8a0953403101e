package Kamado::Prefork::Worker;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Kamado::ErrorLog;
use Kamado::Hooks;
use Kamado::Log;
use Kamado::Process;
use Kamado::Server;

# A worker's life, from the fork to its exit, as functions over the
# Kamado::Prefork object it was forked from; and what the generation
# prepares for its workers before it forks them.

# The keys of the generation's hash this module owns (see Kamado::Prefork).
use constant FIELDS => qw(init servers names starting);

# A worker whose app cannot be loaded (--no-preload) exits with
# LOAD_FAILED, one whose --worker-init dies with INIT_FAILED: the
# generation counts them (Kamado::Prefork's LOAD_TRIES).
use constant { LOAD_FAILED => 2, INIT_FAILED => 3 };

# The worker's signal handlers are named subs over these, not closures:
# a closure made in the worker writes to many pages it shares with the
# generation. A stop that comes while the app loads is acted on once the
# server exists.
# ($TEMPLATE: the pid of the template the workers are forked from, in it
# and in its workers.)
our ($SERVER, $STOP, $ACCESS_LOG, $TEMPLATE);

# In the child just forked ($generation: the parent's pid, $mask: the
# signal mask to restore): never returns.
sub main {
    my ($self, $generation, $mask, $slot, $pool) = @_;
    setup($self, $generation, $mask, $pool);
    serve($self, $slot, $pool);
}

# What every worker does first, in a child of the generation: in the
# worker itself, or once in the template its workers are forked from
# (Kamado::Prefork::Template), whose workers then share what it wrote.
sub setup {
    my ($self, $generation, $mask, $pool) = @_;
    $0 = $self->{names}[ $pool // 0 ];
    Kamado::Log->set_role('worker');
    # the worker's column of the signal table (Kamado::Process)
    $SIG{TERM} = $SIG{QUIT} = \&_stop;
    $SIG{INT} = \&_now;
    $SIG{$_} = 'IGNORE' for qw(HUP TTIN TTOU);    # the generation's business
    my $access_log = $ACCESS_LOG = $self->{server_args}{access_log};
    $SIG{USR1} = \&_reopen;
    # (the lines of requests served go out even when the worker dies)
    Kamado::Hooks->on(worker_exit => sub { $access_log->flush }) if $access_log;
    Kamado::Process::started($generation, $mask);
    $SIG{CHLD} = 'DEFAULT';
    # (the generation's end: a worker holding it would never see the
    # pipe's reader gone)
    close $self->{notice_r} if $self->{notice_r};
    # what serve does before it serves, found once here (in the template,
    # for all its workers): whether start has anything to run (always when
    # the worker loads the app, which may add hooks), whether the worker
    # says it loaded, whether debug lines are logged
    $self->{starting} = [
        ($self->{init} || !$self->{app} || Kamado::Hooks->has('worker_start') ? 1 : 0),
        says_loaded($self), Kamado::Log->enabled('debug') ? 1 : 0
    ];
}

# The worker, set up: loads the app if it is not preloaded, runs start,
# then serves until it stops. Never returns.
sub serve {
    my ($self, $slot, $pool) = @_;
    srand;                             # every worker its own random sequence
    my $notice = $self->{notice_w};
    my $app = $self->{app} // eval { my $app = $self->{loader}->(); $_->() for $self->{prepare}->@*; $app } // do {
        Kamado::Log->error("worker can't load the app: " . ($@ =~ s/\s+\z//r));
        POSIX::_exit(LOAD_FAILED);
    };
    # (what setup found: a worker that runs none of it writes no page)
    my ($starts, $says_loaded, $debug) = $self->{starting}->@*;
    start($self, \&_init_failed) if $starts;
    syswrite $notice, "loaded $$\n" if $says_loaded;
    if ($debug) {
        my $pool_name = $pool ? " for pool $self->{pools}[$pool - 1]{name}" : '';
        my $in_slot = defined $slot ? " in scoreboard slot $slot" : '';
        Kamado::Log->debug("worker of generation $self->{generation}$pool_name started$in_slot");
    }
    my $status = eval {
        my $max = $self->{max_requests};
        # jitter, so workers do not all recycle at the same moment
        $max -= int rand($max / 5) if $max > 4;
        my $age = $self->{max_age};
        $age -= rand($age / 5) if $age;
        # (the pool's server, made before the fork)
        $SERVER = $self->{servers}[ $pool // 0 ]
            ->for_worker(max_requests => $max, max_age => $age, slot => $slot, ($self->{app} ? () : (app => $app)));
        $SERVER->stop if $STOP;
        $SERVER->run;
        0;
    } // do {
        Kamado::Log->error("worker failed: $@");
        1;
    };
    at_exit(0, $self->{graceful_timeout});
    POSIX::_exit($status);             # never run the generation's END blocks
}

# --worker-init died: the worker exits, saying why
sub _init_failed {
    Kamado::Log->error("worker $$: $_[0]");
    POSIX::_exit(INIT_FAILED);
}

sub _stop {
    $STOP = 1;
    $SERVER->stop if $SERVER;
}

# at once, mid-request or not (the template has no exit handlers to run)
sub _now {
    POSIX::_exit(0) if $TEMPLATE && $TEMPLATE == $$;
    at_exit(1);
    POSIX::_exit(0);
}

sub _reopen {
    Kamado::ErrorLog->reopen;
    $ACCESS_LOG->reopen if $ACCESS_LOG;
}

# What Kamado::Server needs to serve pool $i (0: the default pool).
sub _pool_args {
    my ($self, $i) = @_;
    my @queues = $self->{queues}->@*;
    my $timeout = $i ? $self->{pools}[ $i - 1 ]{timeout} : undef;
    my $spec = $i ? $self->{pools}[ $i - 1 ] : undef;
    return (
        # a pool is async or not by its own setting; the default pool by --async
        ($spec ? (async => $spec->{async}, ($spec->{streams} ? (max_streams => $spec->{streams}) : ())) : ()),
        pools => {
            routes  => [map { [$_->{prefix}, fileno $_->{send}] } @queues],
            mine    => $i,
            recv_fd => fileno $queues[$i]{recv},
            listen  => $i == 0 ? 1 : 0,    # a pool's workers take only its queue
        },
        (defined $timeout ? (request_timeout => $timeout) : ()),
    );
}

# In the generation before the first fork (or in the one process of
# --workers 0): --worker-init compiled, and with the app loaded here what
# is to be prepared with it. Dies with the error that stops the generation.
sub before_fork {
    my ($self) = @_;
    $self->{init} = Kamado::Hooks->worker_init($self->{worker_init}) if defined $self->{worker_init};
    # each pool's server, with its loop's parts, made once here: a worker
    # takes its pool's and sets only what is its own (Kamado::Server's
    # for_worker); one that made its own would write to many pages it
    # shares with this process
    my $notice = $self->{notice_w};
    my @pools = (0 .. ($self->{queues} ? $self->{pools}->@* : 0));
    # what ps shows of each pool's workers
    my @suffixes = map { $_ ? " $self->{pools}[$_ - 1]{name}" : '' } @pools;
    $self->{names} = [map { $0 =~ s/^kamado generation \d+/kamado worker$_/r } @suffixes];
    $self->{servers} = [
        map {
            Kamado::Server->prepare(
                %{ $self->{server_args} },
                ($self->{queues} ? _pool_args($self, $_) : ()),
                app        => $self->{app},
                on_drain   => sub { syswrite $notice, "retire $$ $_[0]\n" },
                scoreboard => $self->{scoreboard},
            )
        } @pools
    ];
    return unless $self->{app};
    $_->() for $self->{prepare}->@*;
}

# Whether workers say "loaded" once they can serve (and the generation
# waits for the first one before it says it serves): when they load the
# app themselves, or do anything of their own before they accept.
sub says_loaded {
    my ($self) = @_;
    return !$self->{app} || $self->{init} || Kamado::Hooks->has('worker_start') ? 1 : 0;
}

# In each worker once it has the app, before it accepts: the
# worker_start event of Kamado::Hooks (a sub that dies is logged and the
# worker goes on), then --worker-init's hook: when it dies, $fail is
# called with why.
sub start {
    my ($self, $fail) = @_;
    Kamado::Hooks->emit('worker_start');
    my $init = $self->{init} or return;
    eval { $init->(); 1 } or $fail->("--worker-init failed: " . ($@ =~ s/\s+\z//r));
}

# What a worker runs before it exits (it runs no END blocks): the
# worker_exit event of Kamado::Hooks, given 1 when it exits at once (INT),
# and the seconds the app's own handlers may take (--graceful-timeout; 0:
# no limit).
sub at_exit {
    my ($now, $deadline) = @_;
    Kamado::Hooks->emit(worker_exit => $now ? 1 : 0, $deadline // 0);
}

1;
__END__

=head1 NAME

Kamado::Prefork::Worker - a worker's life, from its fork to its exit

=head1 SYNOPSIS

    # in the generation, once
    Kamado::Prefork::Worker::before_fork($prefork);
    # in the child just forked: never returns
    Kamado::Prefork::Worker::main($prefork, $generation_pid, $mask, $slot, $pool);
    # or in two steps: setup once in the template, serve in each worker
    Kamado::Prefork::Worker::setup($prefork, $generation_pid, $mask);
    Kamado::Prefork::Worker::serve($prefork, $slot, $pool);    # never returns

=head1 DESCRIPTION

Functions over a L<Kamado::Prefork> object. C<main> makes the forked
child a worker: it sets the worker's signal handlers (TERM and QUIT stop
it after what it serves, INT at once, USR1 reopens the logs), loads the
app unless it was preloaded (exiting with status 2 when it cannot), runs
C<start>, says C<loaded> on the generation's notice pipe when the
generation waits for that, and runs its pool's L<Kamado::Server> (made
before the fork, given what is the worker's own) until it stops;
then it emits L<Kamado::Hooks>' C<worker_exit> (with
C<graceful_timeout>, the seconds the app's own shutdown handlers may
take) and exits without running END blocks.

C<main> is C<setup> (the name, the log role, the signal handlers, the
parent-death signal, and what C<serve> is to check: whether C<start> has
anything to run, whether to say C<loaded>, whether debug lines are
logged) then C<serve> (the rest). L<Kamado::Prefork::Template> runs
C<setup> once and C<serve> in each worker it forks, so that the workers
share the pages C<setup> writes.

C<start> emits L<Kamado::Hooks>' C<worker_start> and runs the
C<--worker-init> hook, which C<before_fork> compiles in the generation
(with the C<prepare> subs, when the app is preloaded); C<before_fork>
also makes each pool's server and its loop's parts
(C<< Kamado::Server->prepare >>) and each pool's workers' process name,
so that a worker uses them as they are instead of making its own. A
worker whose hook dies exits with status 3.

=cut
