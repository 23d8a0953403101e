package Kamado::Prefork::Scaling;
use 5.024;
use strict;
use warnings;

use List::Util qw(min max);
use Time::HiRes ();
use Kamado::Log;
use Kamado::Prefork::Slots;

# How many workers the default pool has, as functions over the
# Kamado::Prefork object: TTIN and TTOU, and autoscaling. Either changes
# the count the generation's loop forks up to, and retires workers with
# TERM (they finish what they hold; none replaces them).

my %BUSY = map { ($_ => 1) } qw(reading app writing);

# TTIN adds a worker, TTOU retires one (the newest), never the last; both
# act on the default pool; when autoscaling, within --min-workers and
# The keys of the generation's hash this module owns (see Kamado::Prefork).
use constant FIELDS => qw(next_tick);

# --max-workers.
sub resize {
    my ($self, $more, $fewer) = @_;
    return unless $more || $fewer;
    my $want = max(1, $self->{workers} + ($more // 0) - ($fewer // 0));
    $want = min(max($want, $self->{min_workers}), $self->{max_workers}) if $self->autoscaling;
    my @current = sort { $b <=> $a }
        grep { $self->{children}{$_} == $self->{generation} && !$self->{pool_of}{$_} } keys $self->{children}->%*;
    if (@current > $want) {
        my @retire = @current[0 .. @current - $want - 1];
        Kamado::Prefork::retire_worker($self, $_, 'ttou') for @retire;    # not counted: no replacement
        kill TERM => @retire;
    }
    Kamado::Log->notice("TTIN/TTOU: $want worker" . ($want == 1 ? '' : 's'));
    Kamado::Prefork::set_workers($self, $want);
}

# Autoscaling, a few times a second, from the scoreboard: one more worker
# when every current one is busy (reading a body, in the app, writing),
# up to max_workers; one fewer when more than one has been idle for
# max_worker_idle seconds, down to min_workers. The retired worker is the
# idle one holding the fewest connections (then the longest idle); it
# finishes what it holds, as after TTOU. A new worker counts as neither
# busy nor idle until its loop runs, so growth waits for it.
sub autoscale {
    my ($self) = @_;
    my $now = Time::HiRes::time();
    return if $now < ($self->{next_tick} // 0);
    $self->{next_tick} = $now + Kamado::Prefork::Slots::TICK();
    # (the default pool's workers: --pool sizes are fixed)
    my @current = grep { $self->{children}{$_} == $self->{generation} && !$self->{pool_of}{$_} }
        keys $self->{children}->%*;
    return if @current < $self->{workers};    # still starting them
    my @slots = $self->{scoreboard}->slots;
    # keyed by the pid forked, never by the one a slot holds
    my %slot = map { my $i = $self->{slot_of}{$_}; defined $i ? ($_ => {$slots[$i]->%*, pid => $_}) : () } @current;
    my $busy = grep { $BUSY{ $_->{state} } } values %slot;
    if ($busy == @current && $self->{workers} < $self->{max_workers}) {
        Kamado::Prefork::set_workers($self, $self->{workers} + 1);
        Kamado::Log->info("scaling up to $self->{workers} workers: all $busy busy");
        return;
    }
    my @spare = sort { $a->{connections} <=> $b->{connections} || $b->{seconds} <=> $a->{seconds} }
        grep { $_->{state} eq 'idle' && $_->{seconds} >= $self->{max_worker_idle} } values %slot;
    return unless @spare > 1 && $self->{workers} > $self->{min_workers};
    my $pid = $spare[0]{pid};
    return unless $self->{children}{$pid};    # a child of this generation, not reaped
    Kamado::Prefork::set_workers($self, $self->{workers} - 1);
    Kamado::Prefork::retire_worker($self, $pid, 'idle');    # not counted: no replacement
    kill TERM => $pid;
    Kamado::Log->info(sprintf 'retiring idle worker %d (idle %.0f s): %d worker%s', $pid, $spare[0]{seconds},
        $self->{workers}, $self->{workers} == 1 ? '' : 's');
}

1;
__END__

=head1 NAME

Kamado::Prefork::Scaling - how many workers: TTIN, TTOU and autoscaling

=head1 SYNOPSIS

    Kamado::Prefork::Scaling::resize($prefork, $ttin_count, $ttou_count);
    Kamado::Prefork::Scaling::autoscale($prefork) if $prefork->autoscaling;

=head1 DESCRIPTION

Functions over a L<Kamado::Prefork> object that change how many workers
its default pool has (the pools' sizes are fixed). C<resize> acts on TTIN
and TTOU: one more worker, or one fewer (the newest, after its requests),
never fewer than one, and within C<min_workers> and C<max_workers> when
autoscaling. C<autoscale> reads the scoreboard four times a second and
adds a worker when all are busy, or retires the least loaded of those
idle for C<max_worker_idle> seconds (see L<Kamado::Prefork/AUTOSCALING>).

=cut
