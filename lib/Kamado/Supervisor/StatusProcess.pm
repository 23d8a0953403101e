package Kamado::Supervisor::StatusProcess;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();
use Kamado::Log;
use Kamado::Process;
use Kamado::Scoreboard;
use Socket qw(AF_UNIX SOCK_SEQPACKET);

# --status-listen: the status process (Kamado::Status) answers there, in a
# process of its own, never an app worker's or the supervisor's: the app
# cannot block it, and HTTP from the network never reaches the process
# that keeps the server up. It sees every live generation's scoreboard:
# the supervisor makes each one (a memfd) before forking the generation,
# and this module hands the status process its descriptor, with word of
# the generation's state, over a socket pair only the two of them hold. A
# status process that dies is started again a second later, and told
# every board anew.

# new(listener => a Kamado::Listener, args => more for Kamado::Status->new);
# without a listener (no --status-listen), it is off: it starts nothing
# and is told nothing.
sub new {
    my ($class, %args) = @_;
    return bless { listener => $args{listener}, args => $args{args} || {} }, $class;
}

sub pid     { $_[0]{pid} }
sub enabled { defined $_[0]{listener} }

# Forks the status process and tells it every board of $generations (the
# supervisor's pid => {number, cause, board, draining}), and which of them
# ($current) serves.
sub start {
    my ($self, $generations, $current) = @_;
    return unless $self->{listener};
    $self->{started} //= Time::HiRes::time();
    socketpair(my $tell, my $hear, AF_UNIX, SOCK_SEQPACKET, 0)
        or return Kamado::Log->error("can't create the status process's socket: $!");
    my ($pid, $old) = Kamado::Process::fork_signals_blocked();
    return Kamado::Log->error("can't fork the status process: $!") unless defined $pid;
    if ($pid) {
        $self->{pid} = $pid;
        $self->{tell} = $tell;
        for my $gpid (sort { $a <=> $b } keys %$generations) {
            my $gen = $generations->{$gpid};
            $self->tell("board $gen->{number} $gpid $gen->{cause}", $gen->{board}) if $gen->{board};
            $self->tell("serving $gpid") if $current && $gpid == $current;
            $self->tell("draining $gpid") if $gen->{draining};
        }
        return;
    }
    close $tell;
    $0 =~ s/^kamado supervisor/kamado status/;
    Kamado::Log->set_role('status');
    $SIG{$_} = 'IGNORE' for qw(HUP TTIN TTOU USR1);
    $SIG{CHLD} = 'DEFAULT';
    Kamado::Process::started(getppid, $old);
    delete $_->{board} for values %$generations;
    require Kamado::Status;
    my $status = eval {
        Kamado::Status->new(
            $self->{args}->%*,
            listener   => $self->{listener},
            socket     => $hear,
            started    => $self->{started},
            supervisor => getppid,
        )->run;
        0;
    } // do { Kamado::Log->error("the status process failed: $@"); 1 };
    POSIX::_exit($status);
}

# True when no status process runs and the last one died a second ago or
# more (or could not be started): the caller starts another.
sub due {
    my ($self) = @_;
    return $self->{listener} && !$self->{pid} && Time::HiRes::time() >= ($self->{died} // 0) + 1;
}

# A word to the status process (and a board's descriptor), never waiting:
# what it cannot take now is lost, not the supervisor's time.
sub tell {
    my ($self, $msg, $board) = @_;
    return unless $self->{pid};
    Kamado::Scoreboard->send_fd(fileno $self->{tell}, $msg, $board ? $board->fd : -1);
}

# The supervisor reaped $pid: true (and logged) when it was the status
# process.
sub reaped {
    my ($self, $pid, $status) = @_;
    return 0 unless $self->{pid} && $pid == $self->{pid};
    Kamado::Log->warn('the status process exited with ' . Kamado::Process::how($status) . '; starting another');
    delete @$self{qw(pid tell)};
    $self->{died} = Time::HiRes::time();
    return 1;
}

# In another child of the supervisor (a generation): the socket and the
# listener are not its own.
sub close_inherited {
    my ($self) = @_;
    close $self->{tell} if $self->{tell};
    close $self->{listener}->socket if $self->{listener};
}

# The status process goes last: it shows the generations while they drain.
sub stop {
    my ($self) = @_;
    my $pid = delete $self->{pid} or return;
    kill TERM => $pid;
    waitpid $pid, 0;
}

1;
__END__

=head1 NAME

Kamado::Supervisor::StatusProcess - the supervisor's side of the
B<--status-listen> process

=head1 SYNOPSIS

    my $status = Kamado::Supervisor::StatusProcess->new(
        listener => $listener, args => { pools => [...] });
    $status->start(\%generations, $current_pid);
    $status->tell("board $number $pid $cause", $scoreboard);
    $status->start(\%generations, $current_pid) if $status->due;
    $status->stop;

=head1 DESCRIPTION

L<Kamado::Supervisor> forks the status process (L<Kamado::Status>, which
says why it is a process of its own) through this module, makes each
generation's scoreboard in a memfd before forking the generation, and
hands the status process the descriptor and the generation's state with
C<tell>; a status process that dies (C<reaped>) is started again a second
later (C<due>), and told every board anew. Without a listener the
object is off (C<enabled> is false): it starts nothing and is told
nothing, so the supervisor holds one either way.

=cut
