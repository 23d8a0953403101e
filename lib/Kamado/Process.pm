package Kamado::Process;
use 5.024;
use strict;
use warnings;

use POSIX qw(WNOHANG);
use Time::HiRes ();
use Kamado;

# What the supervisor and a generation share: the signal table, the fork
# of a child process and its first steps, reading a child's word on a
# pipe, and the loop that stops children.

# The signal table. In the supervisor and in a generation a handler only
# sets its flag (INT sets stop too); their loops act on the flags. A
# worker handles its own (see Kamado::Prefork).
our %FLAG = (
    TERM => 'stop',      # finish what is being served, then exit
    QUIT => 'stop',
    INT  => 'now',       # stop at once
    HUP  => 'reload',    # the supervisor: load the app in a new generation
    TTIN => 'more',      # a worker more
    TTOU => 'fewer',     # a worker fewer
    USR1 => 'reopen',    # reopen --error-log
    CHLD => 'child',     # a child exited: only wakes the loop
);

# Sets handlers for @names (signals of the table) that count into
# %$flags; SIGPIPE is ignored (a write to a closed pipe or socket fails).
# One %$flags a process, the last given. The handlers are named subs,
# not closures: a worker that sets its own frees nothing of them, and
# freeing a closure writes to pages it shares with the generation.
my $FLAGS;

sub catch_signals {
    my ($flags, @names) = @_;
    $FLAGS = $flags;
    for my $name (@names) {
        $FLAG{$name} // die "no flag for SIG$name";
        $SIG{$name} = $name eq 'INT' ? \&_interrupted : \&_signalled;
    }
    $SIG{PIPE} = 'IGNORE';
}

sub _signalled   { $FLAGS->{ $FLAG{ $_[0] } }++ }
sub _interrupted { $FLAGS->{stop} = $FLAGS->{now} = 1 }

# Signals are blocked across fork: one arriving before the child has set
# its own handlers would run its parent's (which only set a flag the
# child never looks at), and the child would miss its parent's one TERM.
my $FORK_SIGNALS = POSIX::SigSet->new(map { POSIX->can("SIG$_")->() } grep { $_ ne 'CHLD' } keys %FLAG);

# fork with those signals blocked: returns (pid, the mask before). The
# parent has its mask back; the child restores it with started().
sub fork_signals_blocked {
    my $old = POSIX::SigSet->new;
    POSIX::sigprocmask(POSIX::SIG_BLOCK(), $FORK_SIGNALS, $old);
    my $pid = fork;
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), $old) if $pid || !defined $pid;
    return ($pid, $old);
}

# In a child, once its handlers are set: the signal mask back, and TERM
# when $parent dies (a child must not outlive a parent killed with KILL);
# it exits at once if $parent died before that.
sub started {
    my ($parent, $mask) = @_;
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), $mask);
    Kamado::set_parent_death_signal(POSIX::SIGTERM());
    POSIX::_exit(0) if getppid != $parent;
}

# What a pipe holds now, without waiting (a child's notices are single
# short writes, so whole lines).
sub read_waiting {
    my ($fh) = @_;
    my $got = '';
    vec(my $rin = '', fileno $fh, 1) = 1;
    while (select(my $rout = $rin, undef, undef, 0) > 0) {
        sysread($fh, $got, 4096, length $got) or last;
    }
    return $got;
}

# A wait status in words, for the log.
sub how {
    my ($status) = @_;
    return $status & 127 ? 'signal ' . ($status & 127) : 'status ' . ($status >> 8);
}

# The shutdown loop: TERM to every child in %$children (pid => anything),
# or INT when $flags->{now} is set, then waits until all are reaped
# (on_reap is called with each pid, its wait status and its value). An INT that comes meanwhile
# ($flags->{now}) passes INT on to those left. With a timeout (seconds; 0
# or none waits for ever), those left then get KILL, after on_timeout is
# called with their pids.
sub stop_children {
    my (%arg) = @_;
    my ($children, $flags) = @arg{qw(children flags)};
    my $timeout = $arg{timeout} || 0;
    # Thousands of workers exit at once, many while kill() below is one
    # op: a Perl handler would count more than 120 pending SIGCHLDs, and
    # perl dies of it ("Maximal count of pending signals"), leaving them
    # orphans. The loop polls instead.
    local $SIG{CHLD} = 'DEFAULT';
    my $sent = $flags->{now} ? 'INT' : 'TERM';
    kill $sent, keys %$children;
    my $deadline = $timeout > 0 ? Time::HiRes::time() + $timeout : 'inf';
    while (%$children) {
        if ($flags->{now} && $sent ne 'INT') {
            kill INT => keys %$children;
            $sent = 'INT';
        }
        my $pid = waitpid(-1, WNOHANG);
        last if $pid < 0;
        if ($pid > 0) {
            my $child = delete $children->{$pid};
            $arg{on_reap}->($pid, $?, $child) if $arg{on_reap};
            next;
        }
        if (Time::HiRes::time() >= $deadline) {
            my @left = sort { $a <=> $b } keys %$children;
            $arg{on_timeout}->(@left) if $arg{on_timeout};
            kill KILL => @left;
            $deadline = 'inf';
        }
        Time::HiRes::sleep(0.02);
    }
}

1;
__END__

=head1 NAME

Kamado::Process - the signal table and the shutdown loop of the
supervisor and its generations

=head1 DESCRIPTION

Kamado runs three kinds of process (four with B<--status-listen>):

    kamado supervisor app.psgi          Kamado::Supervisor
     \_ kamado status app.psgi          Kamado::Status (--status-listen)
     \_ kamado generation 2 app.psgi    Kamado::Prefork (the app loaded)
         \_ kamado worker app.psgi      Kamado::Server
         \_ kamado worker app.psgi

The I<supervisor> is the process kamado started as; it never loads the
app. A I<generation> loads it and forks its I<workers>; HUP makes a new
generation next to the serving one. This module holds what the
supervisor and a generation share.

=head1 SIGNALS

    signal      supervisor                  generation               worker
    TERM, QUIT  stop: to every generation   stop: workers drain,     stop after what it
                                            KILL past                holds
                                            --graceful-timeout
    INT         stop now: INT to each       INT to every worker      exit at once
    HUP         reload: a new generation    ignored                  ignored
    TTIN, TTOU  to the serving generation   a worker more, fewer     ignored
    USR1        reopen the log; to each     reopen; to every worker  reopen the log
                                            and the template

The template the workers are forked from (L<Kamado::Prefork::Template>)
stops on TERM and QUIT, exits at once on INT, reopens the logs on USR1
and ignores the others; it also exits when its generation closes its
pipe or dies. The status process stops (after what it is answering) on TERM, QUIT and
INT, from the supervisor once the generations are gone, and ignores the
others.

=head1 FUNCTIONS

=over

=item catch_signals(\%flags, @names)

Handlers that count each signal into its flag of C<%FLAG> (C<stop>,
C<now>, C<reload>, C<more>, C<fewer>, C<reopen>, C<child>; INT sets
C<stop> and C<now>).

=item fork_signals_blocked

C<fork> with the table's signals blocked; returns the pid and the mask
from before, which the child restores with C<started($parent, $mask)>.

=item read_waiting($fh)

What a pipe holds now, without waiting.

=item how($status)

A wait status as "status N" or "signal N".

=item stop_children(children => \%pids, flags => \%flags, timeout => S, on_reap => CODE, on_timeout => CODE)

TERM (INT when C<now> is set, or becomes set) to the children, wait for
them all, KILL those left after C<timeout> seconds (0: never).

=back

=cut
