package Kamado::Supervisor;
use 5.024;
use strict;
use warnings;

use List::Util ();
use POSIX qw(WNOHANG);
use Time::HiRes ();
use Kamado;
use Kamado::ErrorLog;
use Kamado::Log;
use Kamado::Prefork;
use Kamado::Notify;
use Kamado::Options ();
use Kamado::Process;
use Kamado::Scoreboard;
use Kamado::Supervisor::Generation;
use Kamado::Supervisor::StatusProcess;

# The process kamado's users signal. It never loads the application: it
# forks a generation, a process that loads the app afresh (its modules
# are not in the supervisor, so they are compiled from the files on disk
# again) and runs Kamado::Prefork over its workers. HUP starts a
# new generation next to the serving one, and only once the new one serves
# is the old one told to drain (TERM): both accept on the same listening
# sockets meanwhile, so no connection is refused. When the new code fails
# to load, the old generation keeps serving and the error is logged.
# Signal handlers only set flags; the loop in run() acts on them.
#
# Each generation leads a process group of its own (its workers are in
# it), so a generation that must go is killed with everything it started:
# one that has not served within --load-timeout, and draining ones beyond
# MAX_DRAINING or DRAIN_SLACK seconds past --graceful-timeout (their own
# deadline has failed them). A HUP (or a --reload) that would make more
# than MAX_DRAINING drain waits until one has exited, so that no request
# is cut off for it.
#
# With --reload, a watcher process (Kamado::Reload) reports changed
# files; a reload is the same as HUP, once the changes have settled, and
# once a generation still loading has served or failed.
use constant { MAX_DRAINING => 2, DRAIN_SLACK => 5 };

sub new {
    my ($class, %args) = @_;
    return bless {
        prefork_args => $args{prefork_args},   # for Kamado::Prefork->new
        loader       => $args{loader},         # returns the app; dies on failure
        preload      => $args{preload},        # load in the generation, or in each worker
        startup      => $args{startup},        # run in each generation before the app loads
        on_ready     => $args{on_ready},       # once the first generation serves
        load_timeout => $args{load_timeout} // Kamado::Options::default('load_timeout'),    # seconds; 0: none
        watch        => $args{watch},          # --reload: {dirs => [...], ignore => [...]}
        keeper       => $args{keeper},         # Kamado::Keeper, root's, or undef
        generations  => {},                    # pid => Kamado::Supervisor::Generation
        number       => 0,
        # --status-listen: answered by a process of its own
        status_process => Kamado::Supervisor::StatusProcess->new(
            listener => $args{status_listener}, args => $args{status_args}),
    }, $class;
}

# Returns the exit code; dies "kamado: ..." when the first generation
# cannot load the app.
sub run {
    my ($self) = @_;
    my $status = eval { $self->_run };
    my $error = $@;
    $self->_stop_watcher;
    $self->{status_process}->stop;
    die $error unless defined $status;
    return $status;
}

sub _run {
    my ($self) = @_;
    my %signal;
    local $0 = "kamado supervisor $0";
    Kamado::Process::catch_signals(\%signal, keys %Kamado::Process::FLAG);
    $self->{status_process}->start($self->{generations});

    $self->_start_watcher if $self->{watch};
    my $first = $self->_start_generation('start');
    my ($ready, $why, $status) = $self->_wait_for($first, \%signal);
    if (!defined $ready) {
        $self->_stop_all(\%signal);
        return 0;                           # stopped while loading
    }
    if (!$ready) {
        return 1 if $status == 1 << 8;      # it gave up, and logged why
        die "kamado: $why\n";
    }
    $self->{current} = $first;
    $self->{status_process}->tell("serving $first");
    $self->{on_ready}->() if $self->{on_ready};

    my $last_crash = 0;
    while (!$signal{stop}) {
        delete $signal{child};
        if (delete $signal{reload}) {
            if ($self->{pending}) {
                Kamado::Log->notice('HUP: a new generation is still loading; this HUP is ignored');
            } elsif ($self->_draining >= MAX_DRAINING) {
                # a new one would push a third into draining: the oldest
                # would have to be killed, its requests cut off
                Kamado::Log->notice('HUP: ' . $self->_draining . ' generations are still finishing their requests;'
                    . ' the new generation starts once one of them has exited') unless $self->{deferred}++;
            } else {
                Kamado::Log->notice('HUP: loading the application afresh in a new generation');
                $self->_reload('hup');
            }
        }
        if ($self->{deferred} && !$self->{pending} && $self->_draining < MAX_DRAINING) {
            delete $self->{deferred};
            Kamado::Log->notice('HUP: a draining generation has exited; loading the application afresh in a new generation');
            $self->_reload('hup');
        }
        $self->_check_watcher;
        if (delete $signal{reopen}) {
            # the files logrotate moved away are made anew, as root
            Kamado::Log->error("USR1: $_") for $self->{keeper} ? $self->{keeper}->prepare : ();
            Kamado::Log->notice('USR1: reopened ' . Kamado::ErrorLog->path)
                if Kamado::ErrorLog->path && Kamado::ErrorLog->reopen;
            # (for the generations started from now on)
            my $access_log = $self->{prefork_args}{server_args}{access_log};
            Kamado::Log->notice('USR1: reopened ' . $access_log->path) if $access_log && $access_log->reopen;
            kill USR1 => $_ for keys $self->{generations}->%*;    # old ones log too
        }
        for my $sig (qw(TTIN TTOU)) {
            my $n = delete $signal{ $Kamado::Process::FLAG{$sig} } or next;
            # (lost while no generation serves: never kill 0, the group)
            kill $sig => $self->{current} for $self->{current} ? 1 .. $n : ();
        }
        $self->_check_pending;
        $self->_enforce_deadlines;
        my $status = $self->_reap;
        if (defined $status) {
            # the serving generation ended by itself: it gave up (its
            # workers could not load the app), or was killed
            return 1 if $status == 1 << 8;
            $last_crash = Time::HiRes::time();
        }
        if (!$self->{current} && !$self->{pending} && Time::HiRes::time() >= $last_crash + 1) {
            Kamado::Log->notice('starting a new generation to replace it');
            $self->{pending} = $self->_start_generation('replace');
        }
        $self->{status_process}->start($self->{generations}, $self->{current}) if $self->{status_process}->due;
        next if $signal{child} || $signal{reload} || $signal{stop};
        my $rin = '';
        vec($rin, fileno $self->{generations}{ $self->{pending} }->fh, 1) = 1 if $self->{pending};
        vec($rin, fileno $self->{watcher}->fh, 1) = 1 if $self->{watcher};
        my $settle = $self->{watcher} && !$self->{pending} ? $self->{watcher}->settles_in : undef;
        my $wait = List::Util::min(1, $settle // 1);
        select $rin, undef, undef, $wait;   # a signal, a word from a child, or the settle time ends it
    }
    $self->_stop_all(\%signal);
    return 0;
}

# A new generation, as HUP and --reload start it.
sub _reload {
    my ($self, $cause) = @_;
    Kamado::Notify->send('RELOADING=1', 'STATUS=loading the application in a new generation');
    $self->{pending} = $self->_start_generation($cause);
}

sub _start_watcher {
    my ($self) = @_;
    require Kamado::Reload;
    # the first generation loads meanwhile; a change made from now on
    # is seen once the watches are set
    $self->{watcher} = Kamado::Reload->start($self->{watch}->%*)->wait_watching(10);
}

# --reload: a reload once the changes have settled and no generation is
# loading.
sub _check_watcher {
    my ($self) = @_;
    my $watcher = $self->{watcher} or return;
    my @files = $watcher->settled($self->{pending} || $self->{deferred} || $self->_draining >= MAX_DRAINING) or return;
    Kamado::Log->notice('--reload: ' . (@files > 3 ? scalar(@files) . " files changed, among them @files[0 .. 2]" : "changed: @files")
        . '; loading the application afresh in a new generation');
    $self->_reload('reload');
}

sub _stop_watcher {
    my ($self) = @_;
    (delete $self->{watcher})->stop if $self->{watcher};
}

# Forks a generation (Kamado::Supervisor::Generation); returns its pid.
# $cause: start, hup, reload, or replace (the serving one ended).
sub _start_generation {
    my ($self, $cause) = @_;
    my $number = ++$self->{number};
    # made here, so that the status process sees it
    my $board = $self->{status_process}->enabled
        ? Kamado::Scoreboard->new_shared(Kamado::Prefork::slots_needed($self->{prefork_args}))
        : undef;
    my $gen = Kamado::Supervisor::Generation->start(
        $self->%{qw(prefork_args loader preload startup)},
        number   => $number,
        cause    => $cause,
        board    => $board,
        # (the status process's socket and listener, and the other
        # generations' boards, are not the new generation's)
        in_child => sub {
            $self->{status_process}->close_inherited;
            $self->{keeper}->close_inherited if $self->{keeper};
            $_->{board} = undef for values $self->{generations}->%*;
        },
    );
    my $pid = $gen->pid;
    $self->{generations}{$pid} = $gen;
    $self->{status_process}->tell("board $number $pid $cause", $board) if $board;
    return $pid;
}

# Waits until generation $pid serves (returns 1) or fails (returns 0, why,
# its wait status); undef when a stop signal came first.
sub _wait_for {
    my ($self, $pid, $signal) = @_;
    my $gen = $self->{generations}{$pid};
    until ($signal->{stop}) {
        return 1 if $gen->ready;
        $self->_kill_slow_load($pid);
        if (waitpid($pid, WNOHANG) == $pid) {
            my $status = $?;
            delete $self->{generations}{$pid};
            return (0, $gen->{why} || $gen->said =~ s/\s+\z//r || 'the first generation exited with ' . Kamado::Process::how($status), $status);
        }
        vec(my $rin = '', fileno $gen->fh, 1) = 1;
        select $rin, undef, undef, 0.2;
    }
    return undef;
}

# The new generation serves: the old one drains. Or it failed: the old
# one goes on (reaped by _reap).
sub _check_pending {
    my ($self) = @_;
    my $pid = $self->{pending} or return;
    my $gen = $self->{generations}{$pid} or return;
    return unless $gen->ready;
    delete $self->{pending};
    Kamado::Notify->send('READY=1', "STATUS=generation $gen->{number} serves");
    if (my $old = $self->{current}) {
        Kamado::Log->notice("generation $gen->{number} serves; generation $self->{generations}{$old}{number} finishes its requests and exits");
        kill TERM => $old;
        $self->{generations}{$old}{draining} = Time::HiRes::time();
        $self->{status_process}->tell("draining $old");
    }
    $self->{current} = $pid;
    $self->{status_process}->tell("serving $pid");
}

# How many generations drain (told to, not killed).
sub _draining {
    my ($self) = @_;
    return scalar grep { $_->{draining} && !$_->{killed} } values $self->{generations}->%*;
}

# The deadlines of generations that are not the serving one: loading
# (--load-timeout) and draining (MAX_DRAINING, --graceful-timeout).
sub _enforce_deadlines {
    my ($self) = @_;
    $self->_kill_slow_load($self->{pending}) if $self->{pending};
    my $gens = $self->{generations};
    my @draining = sort { $gens->{$a}{draining} <=> $gens->{$b}{draining} }
        grep { $gens->{$_}{draining} && !$gens->{$_}{killed} } keys %$gens;
    my $grace = $self->{prefork_args}{graceful_timeout} // Kamado::Options::default('graceful_timeout');
    my $now = Time::HiRes::time();
    while (my $pid = shift @draining) {
        my $gen = $gens->{$pid};
        if (@draining >= MAX_DRAINING) {
            $gen->kill_group('more than ' . MAX_DRAINING . ' generations are draining');
        } elsif ($grace > 0 && $now > $gen->{draining} + $grace + DRAIN_SLACK) {
            $gen->kill_group(sprintf 'still draining %.0f s after TERM (--graceful-timeout %s)',
                $now - $gen->{draining}, $grace);
        }
    }
}

# A generation that has not said "ready" within --load-timeout is stuck
# (in a BEGIN block, on a lock, on the network): it is killed, so that the
# next HUP can start another.
sub _kill_slow_load {
    my ($self, $pid) = @_;
    my $gen = $self->{generations}{$pid} or return;
    my $limit = $self->{load_timeout} or return;
    return if $gen->{killed} || Time::HiRes::time() < $gen->{started} + $limit;
    $gen->kill_group("not loaded within --load-timeout $limit s");
    $gen->{why} = "killed: not loaded within --load-timeout $limit s";
}

# Returns the wait status of the current generation when it ended.
sub _reap {
    my ($self) = @_;
    my $current_status;
    while ((my $pid = waitpid(-1, WNOHANG)) > 0) {
        my $status = $?;
        next if $self->{watcher} && $self->{watcher}->reaped($pid, $status) && delete $self->{watcher};
        next if $self->{status_process}->reaped($pid, $status);
        my $gen = delete $self->{generations}{$pid} // next;
        $self->{status_process}->tell("gone $pid " . ($gen->{killed} ? 'killed' : $status ? 'crashed' : 'exited'));
        if ($self->{pending} && $pid == $self->{pending}) {
            delete $self->{pending};
            # the old generation serves on: ready as before
            Kamado::Notify->send('READY=1', "STATUS=generation $gen->{number} failed to start") if $self->{current};
            my $said = $gen->said =~ s/\s+\z//r;
            Kamado::Log->error("generation $gen->{number} failed to start ("
                . ($gen->{why} || $said || Kamado::Process::how($status)) . ')'
                . ($self->{current} ? "; generation $self->{generations}{$self->{current}}{number} keeps serving" : ''));
        } elsif ($self->{current} && $pid == $self->{current}) {
            delete $self->{current};
            my $said = $gen->said =~ s/\Aready\n//r =~ s/\s+\z//r;
            Kamado::Log->error("generation $gen->{number} exited with " . Kamado::Process::how($status) . ($said ? ": $said" : ''));
            $current_status = $status;
        } else {
            Kamado::Log->info("generation $gen->{number} has finished" . ($status ? ' (' . Kamado::Process::how($status) . ')' : '')
                . ($gen->{killed} ? ', killed' : ''));
        }
    }
    return $current_status;
}

# TERM or INT to every generation (each drains or stops its workers as
# Kamado::Prefork does, within --graceful-timeout), then wait for them
# all; an INT while they drain stops them at once.
sub _stop_all {
    my ($self, $signal) = @_;
    Kamado::Notify->send('STOPPING=1');
    $self->_stop_watcher;
    my $gens = $self->{generations};
    my %number = map { ($_ => $gens->{$_}{number}) } keys %$gens;
    Kamado::Log->notice($signal->{now} ? 'INT: stopping at once' : 'stopping: the requests in progress are finished first');
    Kamado::Process::stop_children(children => $gens, flags => $signal,
        on_reap => sub {
            my ($pid, $status, $gen) = @_;
            my $said = $status && $gen ? $gen->said =~ s/\Aready\n//r =~ s/\s+\z//r : '';
            $status ? Kamado::Log->error("generation $number{$pid} exited with " . Kamado::Process::how($status) . ($said ? ": $said" : ''))
                : Kamado::Log->info("generation $number{$pid} has finished") if $number{$pid};
        });
    # the status process last: it shows the generations while they drain
    $self->{status_process}->stop;
}

1;
__END__

=head1 NAME

Kamado::Supervisor - the supervisor process: loads the app in
generations and replaces them on HUP

=head1 DESCRIPTION

    kamado supervisor app.psgi          (this module: signals, generations)
     \_ kamado generation 1 app.psgi    (Kamado::Prefork: the app, workers)
         \_ kamado template app.psgi    (Kamado::Prefork::Template: forks them)
         \_ kamado worker app.psgi
         \_ kamado worker app.psgi

The supervisor never loads the application, so each generation compiles
it from the files on disk: HUP loads new code even when the app is
preloaded (where Starman's HUP only re-forks workers from the code its
master process already holds). Modules loaded before the app (C<-M>) stay as the
supervisor loaded them.

With B<--status-listen> it also runs the status process
(L<Kamado::Supervisor::StatusProcess>) and makes each generation's
scoreboard in a memfd before forking the generation, so that the status
process sees it.

=head1 SIGNALS

The table is in L<Kamado::Process>. TERM, QUIT and INT go to every
generation (see L<Kamado::Prefork>); HUP (reload) starts a new generation
and, once it serves, tells the old one to drain;
TTIN, TTOU and USR1 go to the serving generation, and USR1 also reopens
C<--error-log> in the supervisor.

=head1 RELOAD

With C<watch> (C<--reload>, or C<plackup -R> through
L<Plack::Handler::Kamado>), a child process, C<kamado reload watcher>
(L<Kamado::Reload>), reports changed files on a pipe. Once they settle
(0.3 s without another change), and no generation is loading, the
supervisor starts a new generation exactly as on HUP.

=head1 NOTIFY

Under systemd's C<Type=notify> (L<Kamado::Notify>): C<READY=1> when a
generation serves, or fails while the old one serves on; C<RELOADING=1>
when one starts after the first; C<STOPPING=1> on stop.

=head1 DEADLINES

Each generation leads a process group with its workers. A generation
that has not served within C<load_timeout> seconds (C<--load-timeout>,
default 60; 0: none) is killed with its group (KILL) and logged; after HUP
the serving one goes on and the next HUP loads again, at start kamado
exits with the error. At most two generations drain at once: a HUP (or
a B<--reload>) that would make a third waits, logged, until one of them
has exited, so their requests finish; one still draining 5 s after
C<--graceful-timeout> is killed with its workers (the bound on that
wait), and so, should a third ever drain, is the oldest.

=cut
