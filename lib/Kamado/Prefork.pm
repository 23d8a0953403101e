package Kamado::Prefork;
use 5.024;
use strict;
use warnings;

use POSIX qw(WNOHANG);
use List::Util qw(min max sum);
use Socket qw(AF_UNIX SOCK_SEQPACKET);
use Time::HiRes ();
use Kamado::ErrorLog;
use Kamado::Hooks;
use Kamado::Log;
use Kamado::Process;
use Kamado::Server;

# A generation: binds nothing itself (the listeners come ready), forks
# the workers, replaces those that exit, and acts on signals. Signal
# handlers only set flags (Kamado::Process); the loop in run() acts on
# them.

# A worker whose app cannot be loaded (--no-preload) exits with
# LOAD_FAILED, one whose --worker-init dies with INIT_FAILED; after
# LOAD_TRIES of them in a row, with a doubling pause between, the
# generation gives up rather than fork for ever.
use constant { LOAD_FAILED => 2, INIT_FAILED => 3, LOAD_TRIES => 5, LOAD_PAUSE => 0.25 };
# Autoscaling reads the scoreboard this often (seconds).
use constant TICK => 0.25;
# Each worker's memory is read from /proc this often (seconds), for the
# scoreboard file and the status listener.
use constant MEASURE => 1;
my %BUSY = map { ($_ => 1) } qw(reading app writing);

sub new {
    my ($class, %args) = @_;
    my $self = bless {
        workers      => $args{workers} // 4,
        # autoscaling when max_workers is set: from min_workers (at least
        # 1) up to max_workers, retiring workers idle max_worker_idle s
        min_workers  => $args{min_workers},
        max_workers  => $args{max_workers},
        max_worker_idle => $args{max_worker_idle} // 10,
        scoreboard_file => $args{scoreboard},
        # a board made by the supervisor (which shows it on --status-listen)
        scoreboard   => $args{board},
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
        max_requests => $args{max_requests} || 0,
        max_age      => $args{max_age} || 0,
        graceful_timeout => $args{graceful_timeout} // 25,
        on_ready     => $args{on_ready},     # once it serves (see run)
        on_give_up   => $args{on_give_up},   # why, when the app never loads
        children     => {},                  # pid => generation
        pool_of      => {},                  # pid => pool index (0: the default pool)
        generation   => $args{generation} // 1,    # the supervisor's count
        load_failures => 0,                  # in a row; see LOAD_FAILED
        slot_of      => {},                  # pid => scoreboard slot
    }, $class;
    if (defined $self->{max_workers}) {
        $self->{min_workers} = max(1, $self->{min_workers} // 1);
        $self->{workers} = $self->{min_workers};
    }
    return $self;
}

sub autoscaling { defined $_[0]{max_workers} }

# One slot per worker that can be alive at once: a whole generation may
# still be draining while its replacements start (HUP, max-reqs-per-child),
# and TTIN adds to a fixed pool. Workers beyond it run without a slot.
sub _scoreboard {
    my ($self) = @_;
    return $self->{scoreboard} if $self->{board_ready}++;
    my $board = $self->{scoreboard} //= Kamado::Scoreboard->new($self->slots_needed);
    $board->set_generation($self->{generation}, 1 + $self->{pools}->@*);
    $board->publish($self->{scoreboard_file}) if defined $self->{scoreboard_file};
    return $board;
}

# (a class method too: the supervisor makes boards of this size)
sub slots_needed {
    my ($self) = @_;
    my $most = max($self->{workers} // 0, $self->{max_workers} // 0, $self->{min_workers} // 0, 1);
    return 2 * $most + 8;
}

# The board is anonymous shared memory, the generation's and its
# workers' alone; --scoreboard gets a copy, rewritten every TICK (see
# Kamado::Scoreboard), so nothing another user does to that file reaches
# the generation.
sub _board {
    my ($slots, $file) = @_;
    my $board = Kamado::Scoreboard->new($slots);
    $board->publish($file) if defined $file;
    return $board;
}

sub _publish {
    my ($self) = @_;
    $self->_measure if defined $self->{scoreboard_file} || $self->{board_shown};
    return unless defined $self->{scoreboard_file};
    my $now = Time::HiRes::time();
    return if $now < ($self->{next_publish} // 0);
    $self->{next_publish} = $now + TICK;
    $self->{scoreboard}->refresh;
}

# Each worker's memory (/proc/PID/smaps_rollup), into its slot: read here,
# by the pid this process forked, never by a worker on its request path.
sub _measure {
    my ($self) = @_;
    my $now = Time::HiRes::time();
    return if $now < ($self->{next_measure} // 0);
    $self->{next_measure} = $now + MEASURE;
    while (my ($pid, $slot) = each $self->{slot_of}->%*) {
        $self->{scoreboard}->read_memory($slot, $pid);
    }
}

sub run {
    my ($self) = @_;
    return $self->_run_single if $self->{workers} == 0;

    my %signal;
    $self->_scoreboard;               # mapped before the first fork
    # (what the workers' CGI scripts leave running when a worker dies
    # comes here: _stop_orphans)
    Kamado::set_child_subreaper();
    local $0 = $0 =~ /^kamado / ? $0 : "kamado generation $self->{generation} $0";    # what ps shows
    # not local: a second TERM while the generation returns must not kill it
    Kamado::Process::catch_signals(\%signal, qw(TERM QUIT INT TTIN TTOU USR1 CHLD));
    $SIG{HUP} = 'IGNORE';             # the supervisor's: it replaces whole generations

    # workers that stop accepting (request budget spent) say so here, so
    # their replacement starts while they drain
    pipe(my $notice_r, my $notice_w) or die "Can't create a pipe: $!\n";
    $notice_w->autoflush(1);
    $self->{notice_w} = $notice_w;
    $self->_make_queues if $self->{pools}->@*;

    $self->_before_fork;
    # it serves once workers are forked from the preloaded app, or once
    # the first worker has loaded it and done what it does before it
    # accepts (a worker whose --worker-init dies must not count as serving)
    $self->{on_ready}->() if $self->{on_ready} && !$self->_worker_says_loaded;
    my $last_failure = 0;
    while (!$signal{stop}) {
        $self->_read_notices($notice_r);
        if (delete $signal{reopen}) {
            Kamado::ErrorLog->reopen;
            # (for the workers forked from now on)
            $self->{server_args}{access_log}->reopen if $self->{server_args}{access_log};
            kill USR1 => keys $self->{children}->%*;
        }
        $self->_resize(delete $signal{more}, delete $signal{fewer});
        $self->_reap(\$last_failure);
        if ($self->{load_failures} >= LOAD_TRIES) {
            my $why = "giving up: $self->{failing} in $self->{load_failures} workers in a row";
            Kamado::Log->error($why);
            $self->{on_give_up}->($why) if $self->{on_give_up};
            $self->_shutdown({});
            $self->{scoreboard}->refresh;
            return 1;
        }
        $self->_autoscale if $self->autoscaling;
        $self->_publish;
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
    $self->_shutdown(\%signal);
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

# What Kamado::Server needs to serve pool $i (0: the default pool).
sub _pool_args {
    my ($self, $i) = @_;
    my @queues = $self->{queues}->@*;
    my $timeout = $i ? $self->{pools}[ $i - 1 ]{timeout} : undef;
    return (
        pools => {
            routes  => [map { [$_->{prefix}, fileno $_->{send}] } @queues],
            mine    => $i,
            recv_fd => fileno $queues[$i]{recv},
            listen  => $i == 0 ? 1 : 0,    # a pool's workers take only its queue
        },
        (defined $timeout ? (request_timeout => $timeout) : ()),
    );
}

# TTIN adds a worker, TTOU retires one (the newest), never the last; both
# act on the default pool; when autoscaling, within --min-workers and
# --max-workers.
sub _resize {
    my ($self, $more, $fewer) = @_;
    return unless $more || $fewer;
    my $want = max(1, $self->{workers} + ($more // 0) - ($fewer // 0));
    $want = min(max($want, $self->{min_workers}), $self->{max_workers}) if $self->autoscaling;
    my @current = sort { $b <=> $a }
        grep { $self->{children}{$_} == $self->{generation} && !$self->{pool_of}{$_} } keys $self->{children}->%*;
    if (@current > $want) {
        my @retire = @current[0 .. @current - $want - 1];
        $self->{children}{$_} = 0 for @retire;    # not counted: no replacement
        $self->{exit_cause}{$_} = 'ttou' for @retire;
        kill TERM => @retire;
    }
    Kamado::Log->notice("TTIN/TTOU: $want worker" . ($want == 1 ? '' : 's'));
    $self->{workers} = $want;
}

# Autoscaling, a few times a second, from the scoreboard: one more worker
# when every current one is busy (reading a body, in the app, writing),
# up to max_workers; one fewer when more than one has been idle for
# max_worker_idle seconds, down to min_workers. The retired worker is the
# idle one holding the fewest connections (then the longest idle); it
# finishes what it holds, as after TTOU. A new worker counts as neither
# busy nor idle until its loop runs, so growth waits for it.
sub _autoscale {
    my ($self) = @_;
    my $now = Time::HiRes::time();
    return if $now < ($self->{next_tick} // 0);
    $self->{next_tick} = $now + TICK;
    # (the default pool's workers: --pool sizes are fixed)
    my @current = grep { $self->{children}{$_} == $self->{generation} && !$self->{pool_of}{$_} }
        keys $self->{children}->%*;
    return if @current < $self->{workers};    # still starting them
    my @slots = $self->{scoreboard}->slots;
    # keyed by the pid forked, never by the one a slot holds
    my %slot = map { my $i = $self->{slot_of}{$_}; defined $i ? ($_ => {$slots[$i]->%*, pid => $_}) : () } @current;
    my $busy = grep { $BUSY{ $_->{state} } } values %slot;
    if ($busy == @current && $self->{workers} < $self->{max_workers}) {
        $self->{workers}++;
        Kamado::Log->info("scaling up to $self->{workers} workers: all $busy busy");
        return;
    }
    my @spare = sort { $a->{connections} <=> $b->{connections} || $b->{seconds} <=> $a->{seconds} }
        grep { $_->{state} eq 'idle' && $_->{seconds} >= $self->{max_worker_idle} } values %slot;
    return unless @spare > 1 && $self->{workers} > $self->{min_workers};
    my $pid = $spare[0]{pid};
    return unless $self->{children}{$pid};    # a child of this generation, not reaped
    $self->{workers}--;
    $self->{children}{$pid} = 0;    # not counted: no replacement
    $self->{exit_cause}{$pid} = 'idle';
    kill TERM => $pid;
    Kamado::Log->info(sprintf 'retiring idle worker %d (idle %.0f s): %d worker%s', $pid, $spare[0]{seconds},
        $self->{workers}, $self->{workers} == 1 ? '' : 's');
}

sub _spawn {
    my ($self, $pool) = @_;
    $pool //= 0;
    my $generation = $$;
    my $slot = $self->_free_slot;
    $self->{scoreboard}->claim($slot, $self->{generation}, $pool) if defined $slot;
    my ($pid, $old) = Kamado::Process::fork_signals_blocked();
    if (!defined $pid) {
        Kamado::Log->error("Can't fork a worker: $!");
        $self->{scoreboard}->clear($slot) if defined $slot;
        return;
    }
    if ($pid) {
        $self->{children}{$pid} = $self->{generation};
        $self->{pool_of}{$pid} = $pool;
        if (defined $slot) {
            $self->{slot_of}{$pid} = $slot;
            $self->{scoreboard}->set_pid($slot, $pid);
        }
        return;
    }
    $self->_worker_main($generation, $old, $slot, $pool);
}

# The lowest slot no worker holds, or undef when all are taken.
sub _free_slot {
    my ($self) = @_;
    my %taken = map { ($_ => 1) } values $self->{slot_of}->%*;
    for my $i (0 .. $self->{scoreboard}->size - 1) {
        return $i unless $taken{$i};
    }
    return undef;
}

# A reaped worker's slot is free again (its counters added to the
# board's), and its exit is counted by cause: the one it or this process
# gave, else what its wait status says.
sub _release_slot {
    my ($self, $pid, $status) = @_;
    my $slot = delete $self->{slot_of}{$pid};
    return unless defined $slot;    # (an orphan reaped, or a worker without a slot)
    $self->{scoreboard}->clear($slot);
    my $cause = delete $self->{exit_cause}{$pid};
    $cause //= !$status ? 'stop'
        : ($status & 127) == POSIX::SIGVTALRM() ? 'request_timeout'
        : $status >> 8 == LOAD_FAILED && !$self->{app} ? 'load_failed'
        : 'crash';
    $self->{scoreboard}->count_exit(Kamado::Scoreboard->exit_index($cause));
}

sub _worker_main {
    my ($self, $generation, $mask, $slot, $pool) = @_;
    my ($server, $stop);
    my $name = $pool ? " $self->{pools}[$pool - 1]{name}" : '';
    $0 =~ s/^kamado generation \d+/kamado worker$name/;
    Kamado::Log->set_role('worker');
    # the worker's column of the signal table (Kamado::Process); a stop
    # that comes while the app loads is acted on once the server exists
    $SIG{$_} = sub { $stop = 1; $server->stop if $server } for qw(TERM QUIT);
    $SIG{INT} = sub { _at_exit(1); POSIX::_exit(0) };    # at once, mid-request or not
    $SIG{$_} = 'IGNORE' for qw(HUP TTIN TTOU);    # the generation's business
    my $access_log = $self->{server_args}{access_log};
    $SIG{USR1} = sub { Kamado::ErrorLog->reopen; $access_log->reopen if $access_log };
    # (the lines of requests served go out even when the worker dies)
    push our(@AT_WORKER_EXIT), sub { $access_log->flush } if $access_log;
    Kamado::Process::started($generation, $mask);
    $SIG{CHLD} = 'DEFAULT';
    srand;                             # every worker its own random sequence
    my $notice = $self->{notice_w};
    my $app = $self->{app} // eval { my $app = $self->{loader}->(); $_->() for $self->{prepare}->@*; $app } // do {
        Kamado::Log->error("worker can't load the app: " . ($@ =~ s/\s+\z//r));
        POSIX::_exit(LOAD_FAILED);
    };
    $self->_worker_start(sub {
        Kamado::Log->error("worker $$: $_[0]");
        POSIX::_exit(INIT_FAILED);
    });
    syswrite $notice, "loaded $$\n" if $self->_worker_says_loaded;
    Kamado::Log->debug('worker of generation ', $self->{generation}, ($name ? " for pool$name" : ''), ' started',
        (defined $slot ? " in scoreboard slot $slot" : ''));
    my $status = eval {
        my $max = $self->{max_requests};
        # jitter, so workers do not all recycle at the same moment
        $max -= int rand($max / 5) if $max > 4;
        my $age = $self->{max_age};
        $age -= rand($age / 5) if $age;
        $server = Kamado::Server->new(
            %{ $self->{server_args} },
            ($self->{queues} ? $self->_pool_args($pool) : ()),
            app          => $app,
            max_requests => $max,
            max_age      => $age,
            on_drain     => sub { syswrite $notice, "retire $$ $_[0]\n" },
            scoreboard   => $self->{scoreboard},
            slot         => $slot,
        );
        $server->stop if $stop;
        $server->run;
        0;
    } // do {
        Kamado::Log->error("worker failed: $@");
        1;
    };
    _at_exit(0);
    POSIX::_exit($status);             # never run the generation's END blocks
}

# Subs each worker runs once it has the app, before it accepts
# (_worker_start): Kamado::CGI's fork mode starts its zygotes there.
our @AT_WORKER_START;

# In the generation before the first fork (or in the one process of
# --workers 0): --worker-init compiled, and with the app loaded here what
# is to be prepared with it. Dies with the error that stops the generation.
sub _before_fork {
    my ($self) = @_;
    $self->{init} = Kamado::Hooks->worker_init($self->{worker_init}) if defined $self->{worker_init};
    return unless $self->{app};
    $_->() for $self->{prepare}->@*;
}

# Whether workers say "loaded" once they can serve (and the generation
# waits for the first one before it says it serves): when they load the
# app themselves, or do anything of their own before they accept.
sub _worker_says_loaded {
    my ($self) = @_;
    return !$self->{app} || $self->{init} || @AT_WORKER_START ? 1 : 0;
}

# In each worker once it has the app, before it accepts: the subs in
# @AT_WORKER_START (one that dies is logged and the worker goes on), then
# --worker-init's hook: when it dies, $fail is called with why.
sub _worker_start {
    my ($self, $fail) = @_;
    for my $sub (@AT_WORKER_START) {
        eval { $sub->(); 1 } or Kamado::Log->error("at worker start: " . ($@ =~ s/\s+\z//r));
    }
    my $init = $self->{init} or return;
    eval { $init->(); 1 } or $fail->("--worker-init failed: " . ($@ =~ s/\s+\z//r));
}

# What a worker runs before it exits (it runs no END blocks): the subs
# in @AT_WORKER_EXIT, given 1 when it exits at once (INT). Kamado::CGI's
# runner ends its scripts' processes so.
our @AT_WORKER_EXIT;

sub _at_exit {
    my ($now) = @_;
    for my $sub (@AT_WORKER_EXIT) {
        eval { $sub->($now); 1 } or Kamado::Log->error("at worker exit: $@");
    }
}

sub _read_notices {
    my ($self, $fh) = @_;
    my $notices = Kamado::Process::read_waiting($fh);
    while ($notices =~ /^(retire|loaded) (\d+)(?: (\w+))?$/mg) {
        if ($1 eq 'loaded') {
            $self->{load_failures} = 0;
            $self->{on_ready}->() if $self->{on_ready} && !$self->{said_ready}++;
        } elsif (exists $self->{children}{$2}) {
            $self->{children}{$2} = 0;    # retired: its replacement starts now
            # (a stop is this process's doing: it knows why, or it is a shutdown)
            $self->{exit_cause}{$2} //= $3 if $3 && $3 ne 'stop';
        }
    }
}

sub _reap {
    my ($self, $last_failure) = @_;
    while ((my $pid = waitpid(-1, WNOHANG)) > 0) {
        my $gen = delete $self->{children}{$pid} // next;
        $self->_release_slot($pid, $?);
        delete $self->{pool_of}{$pid};
        if ($?) {
            $$last_failure = Time::HiRes::time();
            # (only workers that load the app exit with it for that reason;
            # each one that loaded said so, which resets the count)
            if ($? >> 8 == LOAD_FAILED && !$self->{app}) {
                $self->{load_failures}++;
                $self->{failing} = 'the app failed to load';
            } elsif ($? >> 8 == INIT_FAILED && $self->{init}) {
                $self->{load_failures}++;
                $self->{failing} = '--worker-init failed';
            }
            Kamado::Log->warn("worker $pid exited with " . Kamado::Process::how($?)
                . (($? & 127) == POSIX::SIGVTALRM() ? ' (killed by --request-timeout)' : ''));
        }
    }
}

# TERM, QUIT: workers finish what they are serving, then exit; those still
# busy after --graceful-timeout are killed (a stuck request must not keep a
# deploy waiting for ever), and the log names them. INT ($signal->{now},
# before or during the drain): workers exit at once.
sub _shutdown {
    my ($self, $signal) = @_;
    Kamado::Process::stop_children(
        children => $self->{children},
        flags    => $signal,
        timeout  => $self->{graceful_timeout},
        on_reap  => sub { $self->_release_slot($_[0], $_[1]) },
        on_timeout => sub {
            $self->{exit_cause}{$_} = 'graceful_timeout' for @_;
            Kamado::Log->warn("graceful timeout ($self->{graceful_timeout} s): killing worker"
                . (@_ > 1 ? 's ' : ' ') . join(', ', @_));
        },
    );
    _stop_orphans();
}

# Once the workers are gone, the processes they left (CGI scripts still
# running, what those started) are this process's children (it is their
# subreaper): each one's process group gets TERM, then KILL 2 seconds
# later, and they are reaped. (A group of this process's own, such as a
# zygote's, gets the signal by pid: the group is the server's.)
sub _stop_orphans {
    my $own = getpgrp;
    my $start = Time::HiRes::time();
    my %termed;
    while (1) {
        1 while waitpid(-1, WNOHANG) > 0;
        my %left = _children() or last;
        my $kill = Time::HiRes::time() - $start >= 2;
        my @targets = map { $left{$_} == $own ? $_ : (-$left{$_}, $_) }
            grep { $kill || !$termed{$_}++ } keys %left;
        kill $kill ? 'KILL' : 'TERM', @targets if @targets;
        last if Time::HiRes::time() - $start >= 4;
        Time::HiRes::sleep(0.02);
    }
}

# This process's children: pid => process group (from /proc).
sub _children {
    my %children;
    opendir my $proc, '/proc' or return;
    for my $pid (grep { /\A\d+\z/ } readdir $proc) {
        open my $fh, '<', "/proc/$pid/stat" or next;
        my $stat = <$fh> // next;
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parens
        my ($ppid, $pgrp) = (split ' ', substr($stat, rindex($stat, ')') + 2))[1, 2];
        $children{$pid} = $pgrp if ($ppid // 0) == $$;
    }
    return %children;
}

# --workers 0: serve in this process (debugging, profiling).
sub _run_single {
    my ($self) = @_;
    Kamado::Log->set_role('worker');    # (it serves the requests)
    my $app = $self->{app} // $self->{loader}->();
    $self->{app} = $app;
    $self->_before_fork;
    $self->_worker_start(sub { die "kamado: $_[0]\n" });
    # one slot, this process's, for --scoreboard; with no generation loop
    # to copy it, the copy is rewritten once each request is done
    my $board = _board(1, $self->{scoreboard_file});
    $board->claim(0, 1);
    $board->set_pid(0, $$);
    $board->refresh;
    if (defined $self->{scoreboard_file}) {
        my $inner = $app;
        $app = sub { push $_[0]{'psgix.cleanup.handlers'}->@*, sub { $board->refresh }; $inner->(@_) };
    }
    my $server = Kamado::Server->new(%{ $self->{server_args} }, app => $app, scoreboard => $board, slot => 0);
    my $access_log = $self->{server_args}{access_log};
    @SIG{qw(TERM QUIT)} = (sub { $server->stop }) x 2;
    $SIG{INT} = sub { $access_log->flush if $access_log; POSIX::_exit(0) };
    $SIG{USR1} = sub { Kamado::ErrorLog->reopen; $access_log->reopen if $access_log };
    $SIG{PIPE} = 'IGNORE';
    $self->{on_ready}->() if $self->{on_ready};
    $server->run;
    return 0;
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
C<min_workers> and C<max_workers>, and replaces workers that exit. Before
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
C<request_timeout>, C<load_failed>, C<crash>, C<stop>). It signals only the pids it forked and has not reaped,
never one read from the scoreboard.

=head1 BEFORE THE WORKERS SERVE

With the app preloaded, the subs in C<prepare> (C<--preload-cgi>) run in
the generation before the first fork; without, in each worker once it
has loaded the app. Then each worker, before it accepts, runs the subs
in C<@Kamado::Prefork::AT_WORKER_START> (a failure is logged) and the
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
C<@Kamado::Prefork::AT_WORKER_EXIT> (with 1 when it exits at once, on
INT): L<Kamado::CGI::Reaper> stops its scripts' groups there.

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

=cut
