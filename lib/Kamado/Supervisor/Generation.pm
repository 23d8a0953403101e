package Kamado::Supervisor::Generation;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();
use Kamado::Log;
use Kamado::Prefork;
use Kamado::Process;

# One generation, as the supervisor sees it: a child that loads the app
# afresh and runs Kamado::Prefork over its workers, saying "ready" on a
# pipe once it serves, or the error that stopped it. It leads a process
# group of its own (its workers are in it), so that it can be killed with
# everything it started.
#
# The object is a hash the supervisor keeps its bookkeeping in: number,
# cause, board, started; then draining (the time it was told to drain),
# killed, and why (what stopped it, when the supervisor did).

# start(number => N, cause => start, hup, reload or replace, board => its
# Kamado::Scoreboard or undef, prefork_args, loader, preload, startup
# (see Kamado::Supervisor->new), in_child => code that closes what the
# child must not hold): forks; returns the generation.
sub start {
    my ($class, %arg) = @_;
    pipe(my $status_r, my $status_w) or die "kamado: can't create a pipe: $!\n";
    my ($pid, $old) = Kamado::Process::fork_signals_blocked();
    die "kamado: can't fork a generation: $!\n" unless defined $pid;
    # set in both processes: the group exists whichever of them runs first
    POSIX::setpgid($pid, 0);
    if ($pid) {
        close $status_w;
        return bless {
            pid => $pid, number => $arg{number}, status => $status_r, said => '', started => Time::HiRes::time(),
            board => $arg{board}, cause => $arg{cause},
        }, $class;
    }
    close $status_r;
    $status_w->autoflush(1);
    $arg{in_child}->() if $arg{in_child};
    _main(\%arg, $status_w, $old);
}

sub _main {
    my ($arg, $status_w, $mask) = @_;
    my ($number, $board) = @$arg{qw(number board)};
    my $supervisor = getppid;
    $0 =~ s/^kamado supervisor/kamado generation $number/;
    Kamado::Log->set_role('generation');
    # until Prefork sets its own: a stop while loading ends the load
    $SIG{$_} = 'DEFAULT' for qw(TERM QUIT INT);
    $SIG{$_} = 'IGNORE' for qw(HUP TTIN TTOU USR1);
    $SIG{CHLD} = 'DEFAULT';
    Kamado::Process::started($supervisor, $mask);
    Kamado::Log->debug("generation $number started", $arg->{preload} ? ': loading the app' : '');
    my $app;
    # (the startup file first, whether the app loads here or in the workers)
    my $ok = eval { $arg->{startup}->() if $arg->{startup}; $app = $arg->{loader}->() if $arg->{preload}; 1 };
    if (!$ok || ($arg->{preload} && !$app)) {
        syswrite $status_w, ($@ =~ s/^kamado: //r =~ s/\s+\z//r) . "\n";
        POSIX::_exit(2);
    }
    my $prefork = Kamado::Prefork->new(
        $arg->{prefork_args}->%*,
        generation => $number,
        ($board ? (board => $board, board_shown => 1) : ()),
        app      => $app,
        loader   => $arg->{loader},
        on_ready => sub { syswrite $status_w, "ready\n" },
        on_give_up => sub { syswrite $status_w, "$_[0]\n" },
    );
    my $status = eval { $prefork->run } // do {
        # the supervisor logs it, or dies with it if this is the first
        syswrite $status_w, ($@ =~ s/^kamado: //r =~ s/\s+\z//r) . "\n";
        2;
    };
    POSIX::_exit($status);              # never the supervisor's END blocks
}

sub pid    { $_[0]{pid} }
sub number { $_[0]{number} }

# The status pipe, for the supervisor's select.
sub fh { $_[0]{status} }

# Everything the generation wrote on its status pipe so far.
sub said {
    my ($self) = @_;
    return $self->{said} .= Kamado::Process::read_waiting($self->{status});
}

sub ready { $_[0]->said =~ /^ready$/m }

# KILL to the generation and every process of its group (its workers).
sub kill_group {
    my ($self, $why) = @_;
    Kamado::Log->error("killing generation $self->{number} and its workers: $why");
    kill -9, $self->{pid};
    $self->{killed} = 1;
}

1;
__END__

=head1 NAME

Kamado::Supervisor::Generation - a generation process: forked by the
supervisor, loads the app and runs its workers

=head1 SYNOPSIS

    my $gen = Kamado::Supervisor::Generation->start(
        number => 2, cause => 'hup', board => $scoreboard,
        prefork_args => \%prefork, loader => $loader, preload => 1);
    ... $gen->fh in select ...
    if ($gen->ready) { ... }
    $gen->kill_group('not loaded within --load-timeout 60 s');

=head1 DESCRIPTION

The child is C<kamado generation N>: it runs the C<startup> code, loads
the app (when C<preload> is true, else each worker does) and runs
L<Kamado::Prefork> over its workers, with the scoreboard the supervisor
made for the status process, if any. It writes C<ready> on its status
pipe once it serves, or the error that stopped it (the one-line message,
without C<kamado: >), and exits 2 when the app does not load.
L<Kamado::Supervisor> decides what that means.

=cut
