package Kamado::Server::Async;
use 5.024;
use strict;
use warnings;

use parent 'Kamado::Server';

use EV;
use Kamado;
use Kamado::Log;
use Kamado::Options ();
use Kamado::Server::Errors;
use Kamado::Server::Input;
use Kamado::Server::Limits;
use Kamado::Server::Stream;
use Plack::Util;
use Time::HiRes ();

# One async worker: many requests at once, for apps that answer later
# (psgi.nonblocking). EV's default loop runs the worker, so code written
# for AnyEvent, Mojo::IOLoop (EV reactor) or Future runs unchanged in the
# app; the C loop keeps owning the client sockets, its epoll descriptor
# watched by an EV io watcher and polled with a zero timeout. A request
# whose app answers later becomes a Kamado::Server::Stream, whose writes
# never block.

# The keys of the worker's hash this module owns (see Kamado::Server).
use constant FIELDS => qw(max_streams heartbeat streams native retire_at served retiring blamed stream_peak);

# how often the loop's deadlines are swept and the limits looked at
use constant TICK => 1;

# a callback that holds the loop this long is logged (the watchdog)
use constant BLOCKED => 0.5;

# a burst of at least this many streams, once three quarters of it have
# ended, has its freed memory given back (_release)
use constant BURST => 64;

sub new {
    my ($class, %args) = @_;
    my $self = $class->SUPER::new(%args);
    $self->{max_streams} = $args{max_streams} // Kamado::Options::default('streams');
    $self->{heartbeat} = $args{stream_heartbeat} || 0;    # seconds; 0: none
    $self->{streams} = {};                                  # fd => Kamado::Server::Stream
    return $self;
}

sub stop {
    my ($self) = @_;
    $self->SUPER::stop;
    EV::break(EV::BREAK_ALL) if $self->{loop} && $self->{loop}->drained;
}

# the env each request starts from says it may answer later
sub env_extra { ('psgi.nonblocking' => Plack::Util::TRUE()) }

# its loop's bound on open streams
sub loop_extra { (max_streams => $_[0]{max_streams}) }

sub run {
    my ($self) = @_;
    my ($loop, $native) = $self->open_loop;
    $self->{native} = $native;
    local $SIG{PIPE} = 'IGNORE';
    $self->{retire_at} = $self->{max_age} && Time::HiRes::time() + $self->{max_age};
    $self->{served} = 0;
    my $io = EV::io($loop->epoll_fd, EV::READ, sub { _pump($self) });
    my $tick = EV::timer(TICK, TICK, sub { _tick($self) });
    my @watch = _loop_watch($self);
    my $beat = $self->{heartbeat} && EV::timer($self->{heartbeat}, $self->{heartbeat} / 2, sub { _heartbeat($self) });
    _pump($self);
    EV::run until _done($self);
    Kamado::Server::stops_for($self, $self->{why} // 'stop') if $self->{stopping};
    $_->gone for values $self->{streams}->%*;    # (none, but for an EV::break from the app)
    Kamado::Server::close_loop($self);
    return $self->{served};
}

# A stream begins, and ends (Kamado::Server::Stream).
sub stream_opened {
    my ($self, $fd, $stream) = @_;
    $self->{streams}{$fd} = $stream;
}

sub stream_ended {
    my ($self, $fd, $stream) = @_;
    delete $self->{streams}{$fd} if ($self->{streams}{$fd} // 0) == $stream;
}

sub _done {
    my ($self) = @_;
    return ($self->{stopping} || $self->{retiring}) && $self->{loop}->drained;
}

# Takes what the C loop has: requests to serve, streams cut or drained.
sub _pump {
    my ($self) = @_;
    my $loop = $self->{loop} or return;
    my $log = $self->{access_log};
    for (;;) {
        while (my ($fd, $env, $body, $answers) = $loop->next_request(0)) {
            serve($self, $fd, $env, $body);
            $log->answers($self->{listeners}) if $log && $answers;
            # --max-reqs-per-child: at the budget, no more taken
            _retire($self, 'max_requests')
                if $self->{max_requests} && ++$self->{served} >= $self->{max_requests} && !$self->{retiring};
        }
        my @events = $loop->stream_events;
        $log->answers($self->{listeners}) if $log;
        Kamado::Server::Errors::log_faults($self);    # the loop's own 500s
        last unless @events;
        while (my ($fd, $id, $kind) = splice @events, 0, 3) {
            my $stream = $self->{streams}{$fd};
            next unless $stream && $stream->{id} == $id;
            $kind == 1 ? $stream->gone : $stream->drained;
        }
    }
    EV::break(EV::BREAK_ALL) if _done($self);
}

# Once a second: the loop's deadlines (a zero-timeout poll sweeps them),
# the idle hook and log, the worker's limits.
sub _tick {
    my ($self) = @_;
    _pump($self);
    _release($self);
    _limits($self) unless $self->{retiring} || $self->{stopping};
    $self->{on_tick}->() if $self->{on_tick} && !$self->{loop}->streams;
    $self->{access_log}->idle($self->{listeners}) if $self->{access_log};
    EV::break(EV::BREAK_ALL) if _done($self);
}

# --max-worker-age, --max-rss (looked at once a second, not per request:
# the worker serves many at once): the worker stops taking requests, and
# exits once its streams have ended.
sub _limits {
    my ($self) = @_;
    return _retire($self, 'max_age') if $self->{retire_at} && Time::HiRes::time() >= $self->{retire_at};
    my $streams = keys $self->{streams}->%*;
    _retire($self, 'max_rss')
        if $self->{max_rss} && Kamado::Server::Limits::over_rss($self, undef, $self->{max_rss} * 1024, $streams);
}

# What a burst of streams freed stays the worker's, private and counted
# by --max-rss, until the allocator is told to give it back: once most of
# a burst has ended, it is (a walk of the heap: once a burst, not a tick).
sub _release {
    my ($self) = @_;
    my $open = keys $self->{streams}->%*;
    my $peak = $self->{stream_peak} //= 0;
    $self->{stream_peak} = $peak = $open if $open > $peak;
    return unless $peak >= BURST && $open <= $peak / 4;
    Kamado::release_free_memory();
    $self->{stream_peak} = $open;
}

# The worker takes no more requests, and exits once its streams end.
sub _retire {
    my ($self, $why) = @_;
    Kamado::Server::stops_for($self, $why);
    $self->{retiring} = 1;
    $self->{loop}->stop_accepting(0);
    $self->{on_drain}->($why) if $self->{on_drain};
}

# --stream-heartbeat: a comment line on each idle event stream.
sub _heartbeat {
    my ($self) = @_;
    my $idle_since = Time::HiRes::time() - $self->{heartbeat};
    $_->heartbeat($idle_since) for values $self->{streams}->%*;
}

# Runs the app for one request: what it answers at once is sent as the
# blocking worker sends it; a delayed response becomes a stream.
sub serve {
    my ($self, $fd, $env, $body_kind) = @_;
    my $loop = $self->{loop};
    if ($body_kind) {
        # read whole before the app is called (the loop holds it already,
        # in its buffer or a temporary file)
        delete $env->{HTTP_EXPECT};
        Kamado::Server::Input::read_body($self, $fd, $env, $body_kind) or return _logged($self, $env);
    } else {
        $env->{'psgi.input'} = Kamado::Server::Input::empty($self);
    }
    Kamado::Server::upgradable($fd, $env) if exists $env->{HTTP_UPGRADE};
    $env->{'psgix.cleanup.handlers'} = [];
    my $start = Time::HiRes::time();
    my $res = eval { $self->{app}->($env) };
    my $error = $@;
    Kamado::Server::_forked() if Kamado::current_pid() != $self->{pid};
    _watchdog($self, $env, $start);
    _retire($self, 'harakiri') if $env->{'psgix.harakiri.commit'} && !$self->{retiring};
    if (ref $res eq 'CODE') {
        return Kamado::Server::Stream->start($self, $fd, $env, $res, $start);
    }
    if (!defined $res) {
        Kamado::Server::Errors::log_error($env, "app died: " . ($error || 'returned undef'));
        Kamado::Server::Errors::server_error($self, $fd);
    } elsif (ref $res eq 'ARRAY' && @$res == 3 && $res->[0] eq '101' && $env->{'psgix.io'}) {
        my $up = Kamado::Server::upgrade($self, $fd, $env, $res);
        Kamado::Server::Errors::framing_error($self, $fd, $env, $up) if defined $up && !$up;
    } elsif (ref $res eq 'ARRAY') {
        Kamado::Server::Response::respond($self, $fd, $env, $res);
    } else {
        Kamado::Server::Errors::log_error($env, "app returned an invalid response: $res");
        Kamado::Server::Errors::server_error($self, $fd);
    }
    _logged($self, $env);
    Kamado::Server::Stream::cleanup($env);
}

sub _logged {
    my ($self, $env) = @_;
    my $log = $self->{access_log} or return;
    $self->{native} ? $self->{loop}->log_request($env) : $log->request($env);
}

# The watchdog: an app call (or a stream's callback) that held the loop
# BLOCKED seconds or more stalled every stream of this worker: logged
# with its request, and counted.
sub _watchdog {
    my ($self, $env, $start) = @_;
    my $took = Time::HiRes::time() - $start;
    return if $took < BLOCKED;
    $self->{blamed} = 1;
    $self->{loop}->count_blocked if $self->{loop};
    Kamado::Log->warn(sprintf 'event loop blocked %d ms in %s %s', $took * 1000,
        $env->{REQUEST_METHOD} // '-', $env->{REQUEST_URI} // '-');
}

# The same for what runs outside the server's calls (an AnyEvent or Mojo
# callback of the app): the time from EV's return from its wait to its
# next wait, when no request was blamed for it.
sub _loop_watch {
    my ($self) = @_;
    my $woke;
    return (
        EV::check(sub { $woke = Time::HiRes::time(); $self->{blamed} = 0 }),
        EV::prepare(sub {
            return unless $woke;
            my $took = Time::HiRes::time() - $woke;
            return if $took < BLOCKED || $self->{blamed};
            $self->{loop}->count_blocked if $self->{loop};
            Kamado::Log->warn(sprintf 'event loop blocked %d ms in a callback of the app (%d streams open)',
                $took * 1000, scalar keys $self->{streams}->%*);
        }),
    );
}

1;
__END__

=head1 NAME

Kamado::Server::Async - an async worker: many streams at once

=head1 SYNOPSIS

    kamado --async app.psgi
    kamado --pool ai:/ai/,async,streams=2000 app.psgi

=head1 DESCRIPTION

The worker of B<--async>, and of a pool given C<async>: the requests it
serves wait for their app at the same time, up to C<streams=N> (default
1000) per worker. In its env, C<psgi.nonblocking> is true. The worker runs
L<EV>'s default loop, so the app may use L<AnyEvent> (L<AnyEvent::HTTP>),
L<Mojo::IOLoop> with the EV reactor, or L<Future> code; the C loop keeps
the client sockets, its epoll descriptor watched by EV.

The request body is read whole before the app is called. A response
returned at once is sent as a blocking worker sends it. A delayed response
(C<sub { my $responder = shift; ... }>) may call its responder later, from
any callback; the streaming writer it returns is a
L<Kamado::Server::Stream>, whose C<write> never blocks (see there for
C<poll_cb>, C<on_close> and how a client that leaves is told).

At C<streams=N> open streams the worker stops taking connections and its
queued requests wait; the pool's other workers take new ones.

B<--max-reqs-per-child>, B<--max-rss> and B<--max-worker-age> stop the
worker from taking requests; it exits once its streams have ended. TERM
and HUP do the same, the generation's B<--graceful-timeout> bounding it.
B<--request-timeout> bounds each stream: an app that has not answered by
then gets a 504, a stream still open is closed.

=head2 Modules loaded on first use

AnyEvent loads its event model, and L<AnyEvent::HTTP> its socket and
DNS code, the first time they are used: in each worker, at its first
stream, after the fork, where the compiled code is the worker's own and
the stream waits for the compile. Loaded before the fork, they are
shared by every worker:

    kamado --async -MAnyEvent::Impl::EV -MAnyEvent::Socket -MAnyEvent::DNS app.psgi

=head2 The watchdog

An app must not block an async worker: while its code runs, no other
stream of that worker moves. An app call that takes half a second or more
is logged, as C<event loop blocked 850 ms in GET /ai/slow>, and counted
(C<kamado_loop_blocked_total> in B<--status-listen>'s /metrics). Such a route
belongs in a blocking pool:

    kamado --async --pool slow:/ai/slow,workers=4 app.psgi

=head1 SEE ALSO

L<Kamado::Server>, L<Kamado::Server::Stream>

=cut
