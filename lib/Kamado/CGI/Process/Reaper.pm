package Kamado::CGI::Process::Reaper;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();
use Kamado ();
use Kamado::Hooks;

# The worker's side of the processes that run CGI scripts. Each script
# process leads a process group of its own (what it starts is in it too):
# a group is stopped as a whole, TERM and then KILL after a grace. A
# script that has closed its output but still runs does not hold the
# worker: a small process of its own (a watchdog, forked from the worker)
# stops its group if it outlives a bound, and the worker reaps what has
# exited between requests, without waiting.

# seconds between TERM and KILL
use constant GRACE => 2;
# how often a wait for a group to go looks again
use constant POLL => 0.02;
# how often a watchdog looks whether its group is still there
use constant WATCH => 0.25;
# how long a script that has closed its output is given to exit before a
# watchdog is forked for it: closing is nearly always its exit, a few
# milliseconds cost far less than a fork of the worker on every request
use constant EXIT_WAIT => 0.05;

my %running;     # process group of a script being relayed -> 1
my %watchdogs;   # watchdog pid -> the process group it watches

# (a worker runs no END blocks: it emits worker_exit instead; INT, "at
# once", kills without a grace)
Kamado::Hooks->on(worker_exit => sub { __PACKAGE__->stop_all($_[0] ? 0 : undef) });

# A script's process group, started for a request (its leader's pid):
# ended with the worker if it still runs then.
sub started {
    my ($class, $pgid) = @_;
    $running{$pgid} = 1;
}

# The request is answered; a group that still runs may run BOUND seconds
# more (undef or 0: as long as the worker lives), watched by a watchdog.
sub finished {
    my ($class, $pgid, $bound) = @_;
    delete $running{$pgid};
    my ($pause, $until) = (0.0002, Time::HiRes::time() + EXIT_WAIT);
    while (_alive($pgid)) {
        last if Time::HiRes::time() >= $until;
        Time::HiRes::sleep($pause);
        $pause *= 2;
    }
    return unless _alive($pgid);
    my $worker = $$;
    my $pid = fork;
    if (!defined $pid) {
        kill TERM => -$pgid, $pgid;    # (it cannot be watched)
        return;
    }
    if ($pid) {
        $watchdogs{$pid} = $pgid;
        return;
    }
    _watch($pgid, $bound, $worker);
}

# Stops a group now: TERM, then KILL when it has not gone within GRACE
# seconds (default GRACE), waited for here.
sub stop {
    my ($class, $pgid, $grace) = @_;
    delete $running{$pgid};
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
}

# Between requests: reaps the worker's children that have exited (CGI
# processes, watchdogs, and what in-process scripts forked and left:
# under CGI, init reaps them). While some are left, the worker reaps them
# as they exit when it waits for a request (Kamado::Server's IDLE_CHLD).
sub sweep {
    my $pid;
    while (($pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
        delete $watchdogs{$pid};
    }
    $Kamado::Server::IDLE_CHLD = $pid == 0 ? \&sweep : undef;
}

# The worker leaves: every group still running or watched is stopped
# (TERM, KILL after WAIT seconds, default GRACE; 0: KILL at once).
sub stop_all {
    my ($class, $wait) = @_;
    $wait //= GRACE;
    sweep();
    my @left = grep { _alive($_) } keys %running, values %watchdogs;
    # (the watchdogs go: their work is done here)
    kill KILL => keys %watchdogs;
    %running = %watchdogs = ();
    return unless @left;
    kill($wait ? 'TERM' : 'KILL', map { (-$_, $_) } @left);
    my $until = Time::HiRes::time() + $wait;
    while ($wait && (@left = grep { _alive($_) } @left) && Time::HiRes::time() < $until) {
        Time::HiRes::sleep(POLL);
    }
    kill KILL => map { (-$_, $_) } @left if @left;
}

# Whether anything of the group is left (its leader reaped first when it
# is this process's child: a zombie still counts as a member).
sub _alive {
    my ($pgid) = @_;
    waitpid $pgid, POSIX::WNOHANG();
    return kill 0, -$pgid;
}

# The watchdog, in a child of the worker: none of the worker's
# descriptors (its listeners, its clients: a client must see its
# connection close), none of its handlers. Stops the group once BOUND
# seconds have passed, or at once when the worker goes (TERM, and the
# parent death signal); leaves when the group has gone.
sub _watch {
    my ($pgid, $bound, $worker) = @_;
    opendir my $d, '/proc/self/fd';
    POSIX::close($_) for grep { /\A\d+\z/ && $_ > 2 && $_ != fileno $d } readdir $d;
    closedir $d;
    $0 = "kamado reaper $pgid";
    my $now;
    $SIG{$_} = 'DEFAULT' for grep { $_ ne '__DIE__' && $_ ne '__WARN__' } keys %SIG;
    $SIG{TERM} = sub { $now = 1 };
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new);
    Kamado::set_parent_death_signal(POSIX::SIGTERM());
    $now = 1 if getppid != $worker;    # (it went before the line above)
    my $stop_at = $bound ? Time::HiRes::time() + $bound : 'inf';
    while (kill 0, -$pgid) {
        if ($now || Time::HiRes::time() >= $stop_at) {
            __PACKAGE__->stop($pgid);
            last;
        }
        Time::HiRes::sleep(WATCH);
    }
    POSIX::_exit(0);
}

1;
__END__

=head1 NAME

Kamado::CGI::Process::Reaper - stops and reaps the process groups of CGI scripts

=head1 SYNOPSIS

    Kamado::CGI::Process::Reaper->started($pid);          # it leads its process group
    ...relay its output...
    Kamado::CGI::Process::Reaper->finished($pid, $bound); # answered; it may linger $bound s
    Kamado::CGI::Process::Reaper->stop($pid);             # a deadline: TERM, KILL after GRACE
    Kamado::CGI::Process::Reaper->sweep;                  # between requests
    Kamado::CGI::Process::Reaper->stop_all;               # the worker leaves

=head1 DESCRIPTION

Every process that runs a CGI script (exec mode, fork mode, and scripts
for another interpreter) leads a process group of its own, so that what
it starts is stopped with it. The worker does not wait for a script
once the script's output is closed: the response is complete, and the
worker serves the next request. A group still there then gets a
watchdog, a small child of the worker (C<kamado reaper PGID> in C<ps>)
that stops it (TERM, then KILL C<GRACE> seconds later) if it is still
there after the bound (C<--cgi-timeout>), or when the worker goes, and
leaves as soon as the group has gone. What has exited is reaped by the
sweep each CGI request makes, without waiting; the sweep also reaps what
in-process (registry, perlrun) scripts forked and left behind, as init
does under plain CGI. While children are left after a sweep, the worker
catches SIGCHLD when it waits for a request, and only then, and sweeps
again as each exits: no zombie waits for the worker's next request, and
no handler takes the status a script's own C<waitpid> or C<system>
waits for. (It reaps every child of the worker that has
exited: a PSGI application mounted beside the CGI directory that waits
for a child of its own in a later request finds it reaped already.) A
deadline (C<--cgi-timeout>, C<--request-timeout>) stops the group at
once.

When the worker exits, C<stop_all> stops every group still running or
watched. What a worker killed outright leaves behind is stopped by its
watchdogs (their parent death signal) and by its generation (Kamado::Prefork), the
subreaper of its workers' descendants.

=cut
