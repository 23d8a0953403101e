package Kamado::Prefork::Slots;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();
use Kamado::Prefork::Worker;
use Kamado::Scoreboard;

# The generation's scoreboard bookkeeping, as functions over the
# Kamado::Prefork object: the board mapped before the first fork, a slot
# given to each worker forked and taken back when it is reaped, the
# --scoreboard copy rewritten and each worker's memory read into its slot.

# The keys of the generation's hash this module owns (see Kamado::Prefork).
use constant FIELDS => qw(scoreboard board_ready next_publish next_measure);

# The board is read by autoscaling, and its --scoreboard copy rewritten,
# this often (seconds).
use constant TICK => 0.25;
# Each worker's memory is read from /proc this often (seconds), for the
# scoreboard file and the status listener.
use constant MEASURE => 1;

# One slot per worker that can be alive at once: a whole generation may
# still be draining while its replacements start (HUP, max-reqs-per-child),
# and TTIN adds to a fixed pool. Workers beyond it run without a slot.
# (Kamado::Prefork::slots_needed says how many.)
sub board {
    my ($self) = @_;
    return $self->{scoreboard} if $self->{board_ready}++;
    my $board = $self->{scoreboard} = $self->{board} // Kamado::Scoreboard->new($self->slots_needed);
    $board->set_generation($self->{generation}, 1 + $self->{pools}->@*);
    $board->publish($self->{scoreboard_file}) if defined $self->{scoreboard_file};
    return $board;
}

# The board is anonymous shared memory, the generation's and its
# workers' alone; --scoreboard gets a copy, rewritten every TICK (see
# Kamado::Scoreboard), so nothing another user does to that file reaches
# the generation.
sub new_board {
    my ($slots, $file) = @_;
    my $board = Kamado::Scoreboard->new($slots);
    $board->publish($file) if defined $file;
    return $board;
}

sub publish {
    my ($self) = @_;
    _measure($self) if defined $self->{scoreboard_file} || $self->{board_shown};
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

# The lowest slot no worker holds, or undef when all are taken.
sub free {
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
sub release {
    my ($self, $slot, $cause, $status) = @_;
    return unless defined $slot;    # (an orphan reaped, or a worker without a slot)
    $self->{scoreboard}->clear($slot);
    $cause //= !$status ? 'stop'
        : ($status & 127) == POSIX::SIGVTALRM() ? 'request_timeout'
        : $status >> 8 == Kamado::Prefork::Worker::LOAD_FAILED() && !$self->{app} ? 'load_failed'
        : 'crash';
    $self->{scoreboard}->count_exit(Kamado::Scoreboard->exit_index($cause));
}

1;
__END__

=head1 NAME

Kamado::Prefork::Slots - the generation's scoreboard: a slot per worker

=head1 SYNOPSIS

    my $board = Kamado::Prefork::Slots::board($prefork);    # before the first fork
    my $slot = Kamado::Prefork::Slots::free($prefork);      # undef: none left
    Kamado::Prefork::Slots::release($prefork, $slot, $cause, $?);    # once reaped
    Kamado::Prefork::Slots::publish($prefork);              # each turn of the loop

=head1 DESCRIPTION

Functions over a L<Kamado::Prefork> object that keep its
L<Kamado::Scoreboard>: C<board> maps it (anonymous shared memory, or the
supervisor's for B<--status-listen>) before the first fork, with a slot
for every worker that may be alive at once; C<free> finds the slot a new
worker gets; C<release> clears a reaped worker's slot and counts its exit
by cause; C<publish> rewrites the B<--scoreboard> copy every quarter
second and reads each worker's memory from F</proc/PID/smaps_rollup> into
its slot once a second. C<new_board> makes the one-slot board of
C<--workers 0>.

=cut
