package Kamado::Prefork;
use 5.024;
use strict;
use warnings;

use List::Util qw(min max sum);
use Socket qw(AF_UNIX SOCK_SEQPACKET);
use Time::HiRes ();
use Kamado ();
use Kamado::ErrorLog;
use Kamado::Log;
use Kamado::Options ();
use Kamado::Prefork::Reaper;
use Kamado::Prefork::Scaling;
use Kamado::Prefork::Single;
use Kamado::Prefork::Slots;
use Kamado::Prefork::Template;
use Kamado::Prefork::Worker;
use Kamado::Process;

# A generation: binds nothing itself (the listeners come ready), forks
# the workers, replaces those that exit, and acts on signals. Signal
# handlers only set flags (Kamado::Process); the loop in run() acts on
# them. What the loop does is in role modules, as functions over this
# object: Kamado::Prefork::Worker (in the child forked), ::Template (the
# process workers are forked from), ::Slots (the scoreboard), ::Scaling
# (TTIN, TTOU, autoscaling), ::Reaper (reaping and the end), ::Single
# (--workers 0).

# A worker whose app cannot be loaded (--no-preload) or whose
# --worker-init dies exits with the status that says so
# (Kamado::Prefork::Worker's LOAD_FAILED, INIT_FAILED); after LOAD_TRIES
# of them in a row, with a doubling pause between, the generation gives
# up rather than fork for ever.
use constant { LOAD_TRIES => 5, LOAD_PAUSE => 0.25 };

# The keys of the generation's hash this module owns (the role modules own
# the others, each its FIELDS; t/fields.t checks that each writes only its
# own): its settings, its table of workers, its load failures, its pipes.
use constant FIELDS => qw(workers min_workers max_workers max_worker_idle scoreboard_file board board_shown pools app
    loader prepare worker_init server_args max_requests max_age graceful_timeout on_ready on_give_up children pool_of
    generation load_failures failing slot_of retiring exit_cause notice_r notice_w queues said_ready);

sub new {
    my ($class, %args) = @_;
    my $self = bless {
        workers      => $args{workers} // Kamado::Options::default('workers'),
        # autoscaling when max_workers is set: from min_workers (at least
        # 1) up to max_workers, retiring workers idle max_worker_idle s
        min_workers  => $args{min_workers},
        max_workers  => $args{max_workers},
        max_worker_idle => $args{max_worker_idle} // Kamado::Options::default('max_worker_idle'),
        scoreboard_file => $args{scoreboard},
        # a board made by the supervisor (which shows it on --status-listen)
        board        => $args{board},
        board_shown  => $args{board_shown},  # then each worker's memory is measured
        pools        => $args{pools} || [],  # [{name, prefix, workers, timeout}]
        app          => $args{app},          # a PSGI app, or undef with loader
        loader       => $args{loader},       # loads the app in each worker
        # run where the app is loaded, before it serves: here before the
        # first fork (the app preloaded), else in each worker once it has
        # loaded it (Kamado::CGI's --preload-cgi)
        prepare      => $args{prepare} || [],
        worker_init  => $args{worker_init},  # --worker-init's spec (Kamado::Hooks)
        server_args  => $args{server_args} || {},
        max_requests => $args{max_requests} // Kamado::Options::default('max_reqs_per_child'),
        max_age      => $args{max_age} // Kamado::Options::default('max_worker_age'),
        graceful_timeout => $args{graceful_timeout} // Kamado::Options::default('graceful_timeout'),
        on_ready     => $args{on_ready},     # once it serves (see run)
        on_give_up   => $args{on_give_up},   # why, when the app never loads
        children     => {},                  # pid => generation
        pool_of      => {},                  # pid => pool index (0: the default pool)
        generation   => $args{generation} // 1,    # the supervisor's count
        load_failures => 0,                  # in a row; see LOAD_TRIES
        slot_of      => {},                  # pid => scoreboard slot
    }, $class;
    if (defined $self->{max_workers}) {
        $self->{min_workers} = max(1, $self->{min_workers} // 1);
        $self->{workers} = $self->{min_workers};
    }
    return $self;
}

sub autoscaling { defined $_[0]{max_workers} }

# (a class method too: the supervisor makes boards of this size)
sub slots_needed {
    my ($self) = @_;
    my $most = max($self->{workers} // 0, $self->{max_workers} // 0, $self->{min_workers} // 0, 1);
    return 2 * $most + 8;
}

sub run {
    my ($self) = @_;
    return Kamado::Prefork::Single::run($self) if $self->{workers} == 0;

    my %signal;
    Kamado::Prefork::Slots::board($self);    # mapped before the first fork
    # (what the workers' CGI scripts leave running when a worker dies
    # comes here: Kamado::Prefork::Reaper)
    Kamado::set_child_subreaper();
    local $0 = $0 =~ /^kamado / ? $0 : "kamado generation $self->{generation} $0";    # what ps shows
    # not local: a second TERM while the generation returns must not kill it
    Kamado::Process::catch_signals(\%signal, qw(TERM QUIT INT TTIN TTOU USR1 CHLD));
    $SIG{HUP} = 'IGNORE';             # the supervisor's: it replaces whole generations

    # workers that stop accepting (request budget spent) say so here, so
    # their replacement starts while they drain
    pipe(my $notice_r, my $notice_w) or die "Can't create a pipe: $!\n";
    $notice_w->autoflush(1);
    # a worker never waits on it: with thousands retiring at once the
    # pipe fills, and a notice that does not fit is dropped (the worker's
    # exit is seen anyway); workers close the reading end (Worker::main)
    $notice_w->blocking(0);
    @$self{qw(notice_r notice_w)} = ($notice_r, $notice_w);
    $self->_make_queues if $self->{pools}->@*;

    Kamado::Prefork::Worker::before_fork($self);
    Kamado::Prefork::Template::start($self);
    # it serves once workers are forked from the preloaded app, or once
    # the first worker has loaded it and done what it does before it
    # accepts (a worker whose --worker-init dies must not count as serving)
    $self->{on_ready}->() if $self->{on_ready} && !Kamado::Prefork::Worker::says_loaded($self);
    my $last_failure = 0;
    while (!$signal{stop}) {
        $self->_read_notices($notice_r);
        if (delete $signal{reopen}) {
            Kamado::ErrorLog->reopen;
            # (for the workers forked from now on)
            $self->{server_args}{access_log}->reopen if $self->{server_args}{access_log};
            kill USR1 => keys $self->{children}->%*, Kamado::Prefork::Template::pid($self);
        }
        Kamado::Prefork::Scaling::resize($self, delete $signal{more}, delete $signal{fewer});
        Kamado::Prefork::Reaper::reap($self, \$last_failure);
        Kamado::Prefork::Reaper::replace_retired($self);
        if ($self->{load_failures} >= LOAD_TRIES) {
            my $why = "giving up: $self->{failing} in $self->{load_failures} workers in a row";
            Kamado::Log->error($why);
            $self->{on_give_up}->($why) if $self->{on_give_up};
            Kamado::Prefork::Template::stop($self);
            Kamado::Prefork::Reaper::stop_workers($self, {});
            $self->{scoreboard}->refresh;
            return 1;
        }
        Kamado::Prefork::Scaling::autoscale($self) if $self->autoscaling;
        Kamado::Prefork::Slots::publish($self);
        # workers of this generation, and how many each pool lacks
        my @want = ($self->{workers}, map { $_->{workers} } $self->{pools}->@*);
        my @current = (0) x @want;
        while (my ($pid, $gen) = each $self->{children}->%*) {
            $current[ $self->{pool_of}{$pid} ]++ if $gen == $self->{generation};
        }
        my $missing = sum map { max(0, $want[$_] - $current[$_]) } 0 .. $#want;
        # a worker that died at once is not replaced in a tight loop: 1 s
        # after a crash, a doubling pause while the app cannot be loaded
        my $pause = $self->{load_failures} ? min(LOAD_PAUSE * 2**($self->{load_failures} - 1), 4) : 1;
        my $wait = $last_failure + $pause - Time::HiRes::time();
        if ($missing && $wait <= 0) {
            for my $pool (0 .. $#want) {
                $self->_spawn($pool) for $current[$pool] + 1 .. $want[$pool];
            }
            next;
        }
        delete $signal{child};
        next if $signal{child} || $signal{stop} || $signal{more} || $signal{fewer} || $signal{reopen};
        vec(my $rin = '', fileno $notice_r, 1) = 1;
        # a signal or a notice ends the wait
        my $timeout = $missing && $wait < 1 ? $wait : 1;
        $timeout = min($timeout, max(0, $self->{next_tick} - Time::HiRes::time())) if $self->autoscaling;
        $timeout = min($timeout, max(0, $self->{next_publish} - Time::HiRes::time())) if defined $self->{scoreboard_file};
        $timeout = min($timeout, max(0, $self->{next_measure} - Time::HiRes::time())) if $self->{board_shown};
        select $rin, undef, undef, $timeout;
    }
    Kamado::Prefork::Template::stop($self);
    Kamado::Prefork::Reaper::stop_workers($self, \%signal);
    $self->{scoreboard}->refresh;
    return 0;
}

# --pool: one queue per pool, the default one first, each a SOCK_SEQPACKET
# socket pair every worker inherits: a worker hands a request that belongs
# to another pool, with its connection, to that pool's sending end; the
# pool's workers take it from the receiving end. The generation holds
# both ends, so a queue outlives the workers that are replaced.
sub _make_queues {
    my ($self) = @_;
    my @queues;
    for my $pool ({name => 'default', prefix => ''}, $self->{pools}->@*) {
        socketpair(my $send, my $recv, AF_UNIX, SOCK_SEQPACKET, 0)
            or die "Can't create the queue of pool $pool->{name}: $!\n";
        push @queues, {prefix => $pool->{prefix}, send => $send, recv => $recv};
    }
    $self->{queues} = \@queues;
}

sub _spawn {
    my ($self, $pool) = @_;
    $pool //= 0;
    my $slot = Kamado::Prefork::Slots::free($self);
    $self->{scoreboard}->claim($slot, $self->{generation}, $pool) if defined $slot;
    my $pid = Kamado::Prefork::Template::fork_worker($self, $pool, $slot) // _fork($self, $pool, $slot);
    if (!$pid) {
        $self->{scoreboard}->clear($slot) if defined $slot;
        return;
    }
    $self->{children}{$pid} = $self->{generation};
    $self->{pool_of}{$pid} = $pool;
    if (defined $slot) {
        $self->{slot_of}{$pid} = $slot;
        $self->{scoreboard}->set_pid($slot, $pid);
    }
}

# A worker forked from the generation itself (no template): its pid, 0
# when it could not be forked.
sub _fork {
    my ($self, $pool, $slot) = @_;
    my $generation = $$;
    my ($pid, $old) = Kamado::Process::fork_signals_blocked();
    if (!defined $pid) {
        Kamado::Log->error("Can't fork a worker: $!");
        return 0;
    }
    return $pid if $pid;
    Kamado::Prefork::Worker::main($self, $generation, $old, $slot, $pool);
}

# The table of workers, changed by the role modules through these.

# A worker reaped: forgotten. Returns its generation (undef: not one of
# this generation's workers, an orphan), its scoreboard slot and the cause
# of its exit given so far.
sub forget_worker {
    my ($self, $pid) = @_;
    my $gen = delete $self->{children}{$pid};
    delete $self->{retiring}{$pid};
    delete $self->{pool_of}{$pid};
    return ($gen, delete $self->{slot_of}{$pid}, delete $self->{exit_cause}{$pid});
}

# A worker no longer counted (it exits; no replacement for it), for
# CAUSE if given.
sub retire_worker {
    my ($self, $pid, $cause) = @_;
    $self->{children}{$pid} = 0 if exists $self->{children}{$pid};
    $self->{exit_cause}{$pid} = $cause if defined $cause;
}

# A worker that said it retires is replaced (Kamado::Prefork::Reaper).
sub replaced {
    my ($self, $pid) = @_;
    delete $self->{retiring}{$pid};
    retire_worker($self, $pid);
}

sub set_exit_cause {
    my ($self, $pid, $cause) = @_;
    $self->{exit_cause}{$pid} = $cause;
}

# A worker that exited because the app or --worker-init failed, WHY.
sub failed_load {
    my ($self, $why) = @_;
    $self->{load_failures}++;
    $self->{failing} = $why;
}

# How many workers the default pool has (TTIN, TTOU, autoscaling).
sub set_workers {
    my ($self, $n) = @_;
    $self->{workers} = $n;
}

# The app, loaded by the one process of --workers 0.
sub set_app {
    my ($self, $app) = @_;
    $self->{app} = $app;
}

sub _read_notices {
    my ($self, $fh) = @_;
    my $notices = Kamado::Process::read_waiting($fh);
    while ($notices =~ /^(retire|loaded) (\d+)(?: (\w+))?$/mg) {
        if ($1 eq 'loaded') {
            $self->{load_failures} = 0;
            $self->{on_ready}->() if $self->{on_ready} && !$self->{said_ready}++;
        } elsif (exists $self->{children}{$2}) {
            # retired: replaced by Kamado::Prefork::Reaper::replace_retired
            $self->{retiring}{$2} //= Time::HiRes::time();
            # (a stop is this process's doing: it knows why, or it is a shutdown)
            $self->{exit_cause}{$2} //= $3 if $3 && $3 ne 'stop';
        }
    }
    Kamado::Prefork::Reaper::replace_retired($self);
}

1;
__END__

=head1 NAME

Kamado::Prefork - a generation: forks, watches and replaces its workers

=head1 DESCRIPTION

Runs in a generation process under L<Kamado::Supervisor> (or, with
C<--workers 0>, serves in the process itself). The signals below are the
ones the supervisor passes on; the table of all three processes is in
L<Kamado::Process>.

Forks C<workers> workers (a fixed pool), or autoscales between
C<min_workers> and C<max_workers>, and replaces workers that exit. The
workers are forked from a template process that has done their common
setup (L<Kamado::Prefork::Template>), and are this process's children
all the same. Before
the first fork it maps the L<Kamado::Scoreboard> (anonymous shared
memory) with a slot for every worker that may be alive at once; it gives
each worker a slot when it forks it and clears the slot when it reaps it.
With C<scoreboard> (a path) it publishes a copy there, rewritten every
quarter second. Under B<--status-listen> the board is the supervisor's
(C<board>, a memfd the status process also maps). With either, it reads
each worker's memory from F</proc/PID/smaps_rollup> into its slot once a
second. When it reaps a worker it counts the exit by cause (the cause
the worker gave as it stopped accepting, such as C<max_requests>, or the
one this process had, such as C<idle>, else what the wait status says:
C<request_timeout>, C<load_failed>, C<crash>, C<stop>). It signals only
the pids of its workers that it has not reaped, never one read from the
scoreboard.

=head1 ITS ROLE MODULES

L<Kamado::Prefork::Worker>, L<Kamado::Prefork::Template>,
L<Kamado::Prefork::Slots>, L<Kamado::Prefork::Scaling>,
L<Kamado::Prefork::Reaper> and
L<Kamado::Prefork::Single> are functions over this object and share its
hash. Each module declares the keys it owns (its C<FIELDS> constant) and
writes only those; the table of workers (C<children>, C<pool_of>,
C<slot_of>, C<retiring>, C<exit_cause>), the worker count and the load
failures are this module's, changed by the others through
C<forget_worker>, C<retire_worker>, C<replaced>, C<set_exit_cause>,
C<set_workers>, C<failed_load> and C<set_app>. F<t/fields.t> checks it.

=head1 BEFORE THE WORKERS SERVE

With the app preloaded, the subs in C<prepare> (C<--preload-cgi>) run in
the generation before the first fork; without, in each worker once it
has loaded the app. Then each worker, before it accepts, runs the subs
of L<Kamado::Hooks>' C<worker_start> event (a failure is logged) and the
C<worker_init> hook (C<--worker-init>, compiled in the generation by
L<Kamado::Hooks>). A worker whose hook dies exits with status 3 and
counts as a failed load: the doubling pause, and the generation gives up
after five in a row. When the workers have anything to do before they
accept, the generation says it serves only once the first one has done
it.

=head1 AUTOSCALING

With C<max_workers> set (C<--min-workers>, C<--max-workers>), the
generation starts C<min_workers> workers and reads the scoreboard four times a
second. When every current worker is busy (state C<reading>, C<app> or
C<writing>) it adds one, up to C<max_workers> ("scaling up to N workers:
all M busy"); a worker still starting is not busy, so the next is added
only once the new one has been busy too. When more than one worker has
been C<idle> for C<max_worker_idle> seconds, it retires one of them with
TERM, the one with the fewest open connections, then the longest idle
("retiring idle worker PID"), down to C<min_workers>; it finishes what it
holds. Workers of an older generation, and those retiring, are not
counted.

=head1 SIGNALS

=over

=item TERM, QUIT

Stop accepting; every worker finishes the requests it is serving (and the
pipelined ones it already received), then exits; workers still busy after
C<graceful_timeout> seconds (C<--graceful-timeout>) are killed; then the
generation exits.

=item INT

Stop at once: the workers exit in the middle of what they are doing, then
the generation exits. An INT during the drain after TERM does the same.

After either, before the generation exits: it is the subreaper of its
workers' descendants, so what a worker left running (a CGI script
still running when its worker was killed, what the script started) is
its child by then; each one's process group gets TERM, then KILL 2
seconds later. Before a worker exits it calls the subs in
of L<Kamado::Hooks>' C<worker_exit> event (with 1 when it exits at
once, on INT): L<Kamado::CGI::Process::Reaper> stops its scripts' groups there.

=item HUP

Ignored: the supervisor's HUP replaces the whole generation.

=item USR1

Reopen C<--error-log> and C<--access-log>, here and in every worker.

=item TTIN, TTOU

Add a worker to the default pool; retire one of its workers (the newest,
after its requests), never the last. With autoscaling, within
C<min_workers> and C<max_workers>; autoscaling goes on from the new count
(an added worker that stays idle is retired again). The pools'
(C<--pool>) sizes are fixed.

=back

=head1 SEE ALSO

The parts of a generation, each a set of functions over this object:
L<Kamado::Prefork::Worker> (a worker from its fork to its exit),
L<Kamado::Prefork::Template> (the process the workers are forked from),
L<Kamado::Prefork::Slots> (the scoreboard), L<Kamado::Prefork::Scaling>
(TTIN, TTOU and autoscaling), L<Kamado::Prefork::Reaper> (reaping and
stopping the workers), L<Kamado::Prefork::Single> (C<--workers 0>).

=cut
