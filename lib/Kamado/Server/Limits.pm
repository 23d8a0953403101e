package Kamado::Server::Limits;
use 5.024;
use strict;
use warnings;

use Kamado ();
use Kamado::ErrorResponse qw(error_response);
use Kamado::Log;
use Kamado::Server::Errors;

# What a worker allows a request, as functions over the Kamado::Server
# that serves it: --request-timeout (the app interrupted, then the
# worker killed) and --max-rss (the worker replaced once it has grown).

# The keys of the worker's hash this module owns (see Kamado::Server).
use constant FIELDS => qw(timed_env timer_armed);

# --request-timeout: how long after the soft stop the worker is killed
use constant REQUEST_GRACE => 2;
use constant TIMEOUT_ERROR => "Kamado: request timeout\n";

# --request-timeout: the soft stop (USR2, a die in the app) at the
# timeout, the kill (VTALRM: the loop's last words, a 504 among them, then
# its default action) REQUEST_GRACE seconds later for an app that
# swallowed the die or is stuck in C. The clock runs
# from the app's call to the end of the request (response and cleanup
# handlers), when the server's run() stops it; an app interrupted before
# it returned answers 504.
sub timed_app {
    my ($self, $app) = @_;
    return sub {
        my ($env) = @_;
        _arm($self, $env);
        my $res = eval { $app->($env) };
        return $res if defined $res;
        return error_response(504) if $@ eq TIMEOUT_ERROR;
        die $@;
    };
}

# The USR2 handler of the soft stop: a die in whatever Perl code runs.
sub soft_stop {
    my ($self) = @_;
    return sub {
        return unless $self->{timer_armed};
        # (the kill may follow: what is logged already goes out first)
        $self->{access_log}->flush if $self->{access_log};
        # logged here: an app that swallows the die is killed without a word
        Kamado::Server::Errors::log_error($self->{timed_env},
            warn => "past --request-timeout ($self->{request_timeout} s): interrupting it");
        die TIMEOUT_ERROR;
    };
}

sub _arm {
    my ($self, $env) = @_;
    my $t = $self->{request_timeout};
    $self->{timed_env} = $env;
    $self->{timer_armed} = 1;
    Kamado::request_timer($t, $t + REQUEST_GRACE) or die "Can't set the request timers: $!\n";
    return 1;
}

sub disarm {
    my ($self) = @_;
    Kamado::request_timer(0, 0);
    $self->{timer_armed} = 0;
    $self->{timed_env} = undef;
}

# --max-rss, checked after each request (like Apache2::SizeLimit): a worker
# that has grown past it finishes what it holds and is replaced. The
# line names the request ENV after which it happened; without one (an
# async worker looks once a second), it says what the worker waits for,
# WAITING: the streams it has open.
sub over_rss {
    my ($self, $env, $max_kb, $waiting) = @_;
    my $kb = Kamado::resident_kb();
    return 0 if $kb <= $max_kb;
    my $why = sprintf 'resident size %d MB is over --max-rss %d MB; replacing this worker',
        $kb / 1024, $self->{max_rss};
    if ($env) {
        Kamado::Server::Errors::log_error($env, warn => $why);
    } else {
        $why .= $waiting == 1 ? ' once its stream ends' : " once its $waiting streams end" if $waiting;
        Kamado::Log->warn($why);
    }
    return 1;
}

1;
__END__

=head1 NAME

Kamado::Server::Limits - a worker's request timeout and memory limit

=head1 SYNOPSIS

    local $SIG{USR2} = Kamado::Server::Limits::soft_stop($server);
    my $app = Kamado::Server::Limits::timed_app($server, $app);
    ...                                           # after each request:
    Kamado::Server::Limits::disarm($server);
    last if Kamado::Server::Limits::over_rss($server, $env, $max_kb);

=head1 DESCRIPTION

Functions over a L<Kamado::Server>. C<timed_app> wraps the app so that
each call starts the clock of B<--request-timeout>: at the timeout the
kernel sends USR2, whose handler (C<soft_stop>) logs the request and dies
in whatever Perl code runs, and two seconds later VTALRM, which ends the
worker (an app that swallowed the die, or one stuck in C) after the event
loop's last words (C<last_words> in L<Kamado::Loop>: the request's 504,
the other connections finished). An app interrupted before it returned
gets a 504. C<disarm> stops
the clock once the request is done (response and cleanup handlers).

C<over_rss> checks B<--max-rss> after a request (like
L<Apache2::SizeLimit>): a worker grown past it logs so, naming the
request, and is replaced. An async worker looks once a second, with no
request (C<undef>) and the count of its open streams, which the line
says it waits for.

=cut
