package Kamado::Prefork::Single;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Kamado::ErrorLog;
use Kamado::Log;
use Kamado::Prefork::Slots;
use Kamado::Prefork::Worker;
use Kamado::Server;

# The keys of the generation's hash this module owns (see Kamado::Prefork).
use constant FIELDS => ();

# --workers 0: serve in this process (debugging, profiling).
sub run {
    my ($self) = @_;
    Kamado::Log->set_role('worker');    # (it serves the requests)
    my $app = $self->{app} // $self->{loader}->();
    Kamado::Prefork::set_app($self, $app);
    Kamado::Prefork::Worker::before_fork($self);
    Kamado::Prefork::Worker::start($self, sub { die "kamado: $_[0]\n" });
    # one slot, this process's, for --scoreboard; with no generation loop
    # to copy it, the copy is rewritten once each request is done
    my $board = Kamado::Prefork::Slots::new_board(1, $self->{scoreboard_file});
    $board->claim(0, 1);
    $board->set_pid(0, $$);
    $board->refresh;
    if (defined $self->{scoreboard_file}) {
        my $inner = $app;
        $app = sub { push $_[0]{'psgix.cleanup.handlers'}->@*, sub { $board->refresh }; $inner->(@_) };
    }
    my $server = Kamado::Server->class_for($self->{server_args})
        ->new(%{ $self->{server_args} }, app => $app, scoreboard => $board, slot => 0);
    my $access_log = $self->{server_args}{access_log};
    @SIG{qw(TERM QUIT)} = (sub { $server->stop }) x 2;
    $SIG{INT} = sub { Kamado::Prefork::Worker::at_exit(1); $access_log->flush if $access_log; POSIX::_exit(0) };
    $SIG{USR1} = sub { Kamado::ErrorLog->reopen; $access_log->reopen if $access_log };
    $SIG{PIPE} = 'IGNORE';
    $self->{on_ready}->() if $self->{on_ready};
    $server->run;
    Kamado::Prefork::Worker::at_exit(0, $self->{graceful_timeout});
    return 0;
}

1;
__END__

=head1 NAME

Kamado::Prefork::Single - C<--workers 0>: the app served in one process

=head1 SYNOPSIS

    my $status = Kamado::Prefork::Single::run($prefork);

=head1 DESCRIPTION

What L<Kamado::Prefork>'s C<run> does with C<workers> 0, for debugging
and profiling: the process itself loads the app (unless it is
preloaded), does what a worker does before it accepts
(L<Kamado::Prefork::Worker>), and runs one L<Kamado::Server>, with a
one-slot scoreboard whose B<--scoreboard> copy is rewritten after each
request. TERM and QUIT stop it after the request it serves, INT at once;
either way it emits L<Kamado::Hooks>' C<worker_exit> before it ends, as
a worker does. USR1 reopens the logs.

=cut
