package Kamado::Prefork::Reaper;
use 5.024;
use strict;
use warnings;

use List::Util qw(sum);
use POSIX qw(WNOHANG);
use Time::HiRes ();
use Kamado::Log;
use Kamado::Prefork::Slots;
use Kamado::Prefork::Worker;
use Kamado::Process;

# The end of the generation's workers, as functions over the
# Kamado::Prefork object: each one reaped as it exits, and at the end all
# of them stopped, then whatever they left running.

# The keys of the generation's hash this module owns (see Kamado::Prefork).
use constant FIELDS => qw(exits_held);

# Reaps the workers that have exited; $last_failure (a reference) gets
# the time of the last one that failed.
sub reap {
    my ($self, $last_failure) = @_;
    while ((my $pid = waitpid(-1, WNOHANG)) > 0) {
        my ($gen, $slot, $cause) = Kamado::Prefork::forget_worker($self, $pid);
        next unless defined $gen;
        Kamado::Prefork::Slots::release($self, $slot, $cause, $?);
        if ($?) {
            $$last_failure = Time::HiRes::time();
            # (only workers that load the app exit with it for that reason;
            # each one that loaded said so, which resets the count)
            if ($? >> 8 == Kamado::Prefork::Worker::LOAD_FAILED() && !$self->{app}) {
                Kamado::Prefork::failed_load($self, 'the app failed to load');
            } elsif ($? >> 8 == Kamado::Prefork::Worker::INIT_FAILED() && $self->{init}) {
                Kamado::Prefork::failed_load($self, '--worker-init failed');
            }
            Kamado::Log->warn("worker $pid exited with " . Kamado::Process::how($?)
                . (($? & 127) == POSIX::SIGVTALRM() ? ' (killed by --request-timeout)' : ''));
        }
    }
}

# Workers that said they retire (they accept no more, finish what they
# serve and run their exit handlers: PersistentPerl's shutdown handlers,
# bounded by --graceful-timeout) are replaced at once while fewer workers
# are exiting than the generation runs (--workers, with the pools'). Past
# that bound a retiring worker keeps its place, and its replacement
# starts once one of those exiting has gone: recycled workers with slow
# exit handlers do not pile up. Logged once each time the bound holds one.
sub replace_retired {
    my ($self) = @_;
    my $retiring = $self->{retiring} or return;
    return unless %$retiring;
    my $exiting = grep { !$_ } values $self->{children}->%*;
    my $bound = sum($self->{workers}, map { $_->{workers} } $self->{pools}->@*);
    for my $pid (sort { $retiring->{$a} <=> $retiring->{$b} || $a <=> $b } keys %$retiring) {
        if ($exiting >= $bound) {
            Kamado::Log->warn("$exiting workers are still exiting (as many as --workers): the replacement of worker "
                . "$pid waits for one of them to go") unless $self->{exits_held}++;
            return;
        }
        my $counted = exists $self->{children}{$pid};
        Kamado::Prefork::replaced($self, $pid);
        $exiting++ if $counted;
    }
    $self->{exits_held} = 0;
}

# TERM, QUIT: workers finish what they are serving, then exit; those still
# busy after --graceful-timeout are killed (a stuck request must not keep a
# deploy waiting for ever), and the log names them. INT ($signal->{now},
# before or during the drain): workers exit at once.
sub stop_workers {
    my ($self, $signal) = @_;
    Kamado::Process::stop_children(
        children => $self->{children},
        flags    => $signal,
        timeout  => $self->{graceful_timeout},
        on_reap  => sub {
            my (undef, $slot, $cause) = Kamado::Prefork::forget_worker($self, $_[0]);
            Kamado::Prefork::Slots::release($self, $slot, $cause, $_[1]);
        },
        on_timeout => sub {
            Kamado::Prefork::set_exit_cause($self, $_, 'graceful_timeout') for @_;
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

1;
__END__

=head1 NAME

Kamado::Prefork::Reaper - reaps a generation's workers, and stops them

=head1 SYNOPSIS

    Kamado::Prefork::Reaper::reap($prefork, \$last_failure);    # each turn of the loop
    Kamado::Prefork::Reaper::replace_retired($prefork);     # and after the workers' notices
    Kamado::Prefork::Reaper::stop_workers($prefork, \%signal);  # at the end

=head1 DESCRIPTION

Functions over a L<Kamado::Prefork> object. C<reap> waits for the
workers that have exited without blocking, frees their scoreboard slots
(L<Kamado::Prefork::Slots>), logs those that failed and counts those that
could not load the app or whose C<--worker-init> died, for the
generation's give-up rule. C<replace_retired> lets the workers that said
they retire be replaced, as long as fewer are exiting than the generation
runs.

C<stop_workers> stops them all: gracefully within C<graceful_timeout>
seconds (then killed, and named in the log), or at once after INT. Then,
as the subreaper of its workers' descendants, the generation sends TERM,
then KILL 2 seconds later, to the process group of each process they left
running, and reaps them.

=cut
