package Kamado::Prefork::Template;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();
use Kamado::Log;
use Kamado::Prefork::Worker;
use Kamado::Process;

# The process a generation forks its workers from, as functions over the
# Kamado::Prefork object. Every page a process writes after a fork is its
# own copy: a worker forked from the generation copies what it writes in
# its setup (signal handlers, log role, name), and what the generation
# wrote since the last fork. The template does that setup once and then
# only forks, so its workers share those pages.
#
# A worker is forked twice: the first child forks the worker and exits,
# and the worker, orphaned, becomes the generation's child (the generation
# is the subreaper of its descendants), which reaps it, knows how it
# ended and signals it, as with a worker it forked itself. The worker
# starts once the first child is reaped, when its parent is the
# generation.

# The keys of the generation's hash this module owns (see Kamado::Prefork).
use constant FIELDS => qw(template);

# How long the generation waits for the template to name a worker it
# forked before it forks its workers itself.
use constant ANSWER_TIMEOUT => 10;

# In the generation, once its servers are made (Kamado::Prefork::Worker's
# before_fork): the template forked. Without it, workers are forked from
# the generation.
sub start {
    my ($self) = @_;
    my ($ask_r, $ask_w, $tell_r, $tell_w);
    unless (pipe($ask_r, $ask_w) && pipe($tell_r, $tell_w)) {
        Kamado::Log->warn("Can't create the worker template's pipes ($!): workers are forked by the generation");
        return;
    }
    my $generation = $$;
    my ($pid, $mask) = Kamado::Process::fork_signals_blocked();
    if (!defined $pid) {
        Kamado::Log->warn("Can't fork the worker template ($!): workers are forked by the generation");
        return;
    }
    if ($pid) {
        close $_ for $ask_r, $tell_w;
        $self->{template} = {pid => $pid, ask => $ask_w, tell => $tell_r};
        return;
    }
    close $_ for $ask_w, $tell_r;
    _main($self, $generation, $mask, $ask_r, $tell_w);
}

# In the generation: a worker for pool $pool in scoreboard slot $slot
# (undef: none), forked by the template. Returns its pid, 0 when it could
# not be forked (logged); without a template (there is none, or it exited
# or does not answer: logged, and it is not asked again), undef: the
# caller forks the worker itself.
sub fork_worker {
    my ($self, $pool, $slot) = @_;
    my $template = $self->{template} or return undef;
    local $SIG{PIPE} = 'IGNORE';
    if (!syswrite $template->{ask}, pack('l2', $pool, $slot // -1)) {
        Kamado::Log->error("the worker template exited: workers are forked by the generation");
        stop($self);
        return undef;
    }
    my $answer = '';
    my $deadline = Time::HiRes::time() + ANSWER_TIMEOUT;
    while (length $answer < 4 && (my $left = $deadline - Time::HiRes::time()) > 0) {
        vec(my $rin = '', fileno $template->{tell}, 1) = 1;
        # (-1: a signal came, such as SIGCHLD for a worker's exit; its
        # handler, run since, may have set $!)
        my $ready = select $rin, undef, undef, $left;
        next if $ready < 0;
        last if $ready == 0;
        sysread($template->{tell}, $answer, 4 - length $answer, length $answer) or last;
    }
    if (length $answer == 4) {
        my $pid = unpack 'l', $answer;
        return $pid if $pid > 0;
        local $! = -$pid;
        Kamado::Log->error("Can't fork a worker: $!");
        return 0;
    }
    Kamado::Log->error("the worker template does not answer: workers are forked by the generation");
    stop($self);
    # (its pid is still its own: only the generation's loop reaps, and the
    # write above found it not reaped)
    kill KILL => $template->{pid};
    return undef;
}

# In the generation, when it stops: the template exits once its pipe is
# closed (the generation reaps it with whatever its workers left).
sub stop {
    my ($self) = @_;
    my $template = delete $self->{template} or return;
    close $_ for @$template{qw(ask tell)};
}

# The pid of the template, if there is one (it gets what the workers get
# of USR1).
sub pid {
    my ($self) = @_;
    return $self->{template} ? $self->{template}{pid} : ();
}

# The template: the workers' setup, then the fork loop in C (Kamado's
# spawn_next), which returns in each worker it forks, its parent the
# generation, TERM due when the generation dies, the template's pipes
# closed. It exits when the generation closes its end, or stops (TERM,
# QUIT). (Its log lines say "worker": a worker forked from it then writes
# no page to say so.)
sub _main {
    my ($self, $generation, $mask, $ask_r, $tell_w) = @_;
    # plain descriptors, which the C loop closes in each worker: a Perl
    # handle would close whatever reuses their numbers when the worker exits
    # (without them it exits: the generation forks its workers itself)
    my ($ask, $tell) = map { POSIX::dup(fileno $_) // POSIX::_exit(1) } $ask_r, $tell_w;
    close $_ for $ask_r, $tell_w;
    $Kamado::Prefork::Worker::TEMPLATE = $$;
    Kamado::Prefork::Worker::setup($self, $generation, $mask);
    $0 =~ s/^kamado worker/kamado template/;
    until ($Kamado::Prefork::Worker::STOP) {
        my @got = Kamado::spawn_next($ask, $tell, POSIX::SIGTERM()) or last;
        # (a signal came: its handler runs here)
        next if @got == 1;
        $0 = $self->{names}[ $got[0] ];
        Kamado::Prefork::Worker::serve($self, $got[1], $got[0]);
    }
    POSIX::_exit(0);
}

1;
__END__

=head1 NAME

Kamado::Prefork::Template - the process a generation forks its workers from

=head1 SYNOPSIS

    # in the generation, once its servers are made
    Kamado::Prefork::Template::start($prefork);
    # for each worker: its pid; 0: the fork failed; undef: no template
    # (the generation forks the worker itself)
    my $pid = Kamado::Prefork::Template::fork_worker($prefork, $pool, $slot);
    Kamado::Prefork::Template::stop($prefork);    # when the generation stops

=head1 DESCRIPTION

Functions over a L<Kamado::Prefork> object. C<start> forks the template:
a child of the generation that does the setup every worker shares
(L<Kamado::Prefork::Worker>'s C<setup>: signal handlers, log role,
process name, and what C<serve> is to check) and then waits in a fork
loop written in C (L<Kamado>'s C<spawn_next>). C<fork_worker> asks it
for a worker of a pool, in a scoreboard slot; the template forks it
through a first child that exits at once, so the worker is the
generation's child (the generation is the subreaper of its descendants)
and is reaped and signalled as before. The worker then does what is its
own (its random seed, C<--worker-init>, its server:
L<Kamado::Prefork::Worker>'s C<serve>).

Why: each page a process writes after a fork is its own copy, and a
worker forked from the generation copies every page its setup writes
and every page the generation wrote since the previous fork. Forked from
the template, it shares them; and between two forks the template writes
nothing but its C stack. On hello, 4 workers, a worker that served holds
556-584 kB of its own where it held 728-776, and the template about 280
once (F<bench/RESULTS-engine.md>).

A template that cannot be started, exits or does not answer within
C<ANSWER_TIMEOUT> seconds is logged and replaced by forking from the
generation. It exits when the generation closes its pipe (C<stop>), or
dies, or with TERM or QUIT; it ignores what a worker ignores, and
reopens the logs with USR1 so that the workers it forks next write to the
reopened files. C<ps> shows it as C<kamado template>.

=cut
