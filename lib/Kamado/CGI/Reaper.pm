package Kamado::CGI::Reaper;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();

# The worker's side of the processes that run CGI scripts. Each script
# process leads a process group of its own (what it starts is in it too):
# a group is stopped as a whole, TERM and then KILL after a grace. A
# script that has closed its output but still runs does not hold the
# worker: its group is kept here and stopped if it outlives a bound, and
# the worker reaps what has exited between requests, without waiting.

# seconds between TERM and KILL
use constant GRACE => 2;
# how often a wait for a group to go looks again
use constant POLL => 0.02;

my %groups;    # process group -> { kill_at => when it is stopped, termed => TERM sent }

# (a worker runs no END blocks: Kamado::Prefork calls these; INT, "at
# once", kills without a grace)
{ no warnings 'once'; push @Kamado::Prefork::AT_WORKER_EXIT, sub { __PACKAGE__->stop_all($_[0] ? 0 : undef) } }

# A script's process group, started for a request (its leader's pid):
# ended with the worker if it still runs then.
sub started {
    my ($class, $pgid) = @_;
    $groups{$pgid} = { kill_at => 'inf' };
}

# The request is answered; a group that still runs may run BOUND seconds
# more (undef or 0: for ever), then is stopped.
sub finished {
    my ($class, $pgid, $bound) = @_;
    if (!_alive($pgid)) {
        delete $groups{$pgid};
        return;
    }
    my $g = $groups{$pgid} //= {};
    $g->{kill_at} = $bound ? Time::HiRes::time() + $bound : 'inf';
}

# Stops a group now: TERM, then KILL when it has not gone within GRACE
# seconds (default GRACE), waited for here.
sub stop {
    my ($class, $pgid, $grace) = @_;
    kill TERM => -$pgid, $pgid;
    my $kill_at = Time::HiRes::time() + ($grace // GRACE);
    while (_alive($pgid)) {
        if (Time::HiRes::time() >= $kill_at) {
            kill KILL => -$pgid, $pgid;
            _alive($pgid);    # (reaped, if it is gone already)
            last;
        }
        Time::HiRes::sleep(POLL);
    }
    delete $groups{$pgid};
}

# Between requests: reaps the worker's children that have exited (CGI
# processes, and what in-process scripts forked and left: under CGI, init
# reaps them), and stops the groups past their bound (TERM, then KILL
# GRACE seconds later).
sub sweep {
    1 while waitpid(-1, POSIX::WNOHANG()) > 0;
    return unless %groups;
    my $now = Time::HiRes::time();
    for my $pgid (keys %groups) {
        my $g = $groups{$pgid};
        if (!_alive($pgid)) {
            delete $groups{$pgid};
        } elsif ($now >= $g->{kill_at}) {
            if ($g->{termed}) {
                kill KILL => -$pgid, $pgid;
                delete $groups{$pgid};
            } else {
                kill TERM => -$pgid, $pgid;
                @$g{qw(termed kill_at)} = (1, $now + GRACE);
            }
        }
    }
}

# The worker leaves: every group still known is stopped (TERM, KILL after
# WAIT seconds; 0: KILL at once).
sub stop_all {
    my ($class, $wait) = @_;
    $wait //= GRACE;
    sweep();
    my @left = grep { _alive($_) } keys %groups or return;
    kill($wait ? 'TERM' : 'KILL', map { (-$_, $_) } @left);
    my $until = Time::HiRes::time() + $wait;
    while ($wait && (@left = grep { _alive($_) } @left) && Time::HiRes::time() < $until) {
        Time::HiRes::sleep(POLL);
    }
    kill KILL => map { (-$_, $_) } @left if @left;
    %groups = ();
}

# The process groups known (for tests and the status page).
sub groups { sort { $a <=> $b } keys %groups }

# Whether anything of the group is left (its leader reaped first when it
# is this process's child: a zombie still counts as a member).
sub _alive {
    my ($pgid) = @_;
    waitpid $pgid, POSIX::WNOHANG();
    return kill 0, -$pgid;
}

1;
__END__

=head1 NAME

Kamado::CGI::Reaper - stops and reaps the process groups of CGI scripts

=head1 SYNOPSIS

    Kamado::CGI::Reaper->started($pid);          # it leads its process group
    ...relay its output...
    Kamado::CGI::Reaper->finished($pid, $bound); # answered; it may linger $bound s
    Kamado::CGI::Reaper->stop($pid);             # a deadline: TERM, KILL after GRACE
    Kamado::CGI::Reaper->sweep;                  # between requests
    Kamado::CGI::Reaper->stop_all;               # the worker leaves

=head1 DESCRIPTION

Every process that runs a CGI script (exec mode, fork mode, and scripts
for another interpreter) leads a process group of its own, so that what
it starts is stopped with it. The worker does not wait for a script
once the script's output is closed: the response is complete, and the
worker serves the next request. The group is kept here with a bound
(C<--cgi-timeout>), reaped by the sweep each CGI request makes when it
exits, and stopped (TERM, then KILL C<GRACE> seconds later) if it is
still there at the bound. A deadline (C<--cgi-timeout>,
C<--request-timeout>) stops the group at once. The sweep also reaps what
in-process (registry, perlrun) scripts forked and left behind, as init
does under plain CGI.

When the worker exits, C<stop_all> stops every group still known. What a
worker killed outright leaves behind is stopped by its master, which is
the subreaper of the worker's descendants (L<Kamado::Prefork>).

=cut
