package Kamado::Server::Stream;
use 5.024;
use strict;
use warnings;

use EV;
use Kamado ();
use Kamado::Log;
use Kamado::Server::Errors;
use Kamado::Server::Response;
use Time::HiRes ();

# A request an async worker (Kamado::Server::Async) answers later: its
# delayed response's responder, then its streaming writer. The C loop
# holds what the client does not take yet and watches the socket: a client
# that leaves is posted as gone, and the stream tells the app (write
# returns false, on_close callbacks, psgix.cleanup handlers).

# The keys of the worker's hash this module owns (see Kamado::Server):
# none. A stream is an object of its own; it changes the worker's through
# Kamado::Server::Async's functions.
use constant FIELDS => ();

# Starts the stream of the request on $fd, whose app returned $code.
sub start {
    my ($class, $server, $fd, $env, $code, $start) = @_;
    my $loop = $server->{loop};
    my $id = $loop->stream_begin($fd) or return cleanup($env);
    # (few fields: a worker holds a thousand of these)
    my $self = bless {
        server => $server, fd => $fd, id => $id, env => $env, start => $start,
        state => 'waiting',    # then head (writing), done
        on_close => [],
    }, $class;
    Kamado::Server::Async::stream_opened($server, $fd, $self);
    # the app may ask to hear of the client leaving before it answers
    $env->{'kamado.on_close'} = _method_cb($self, 'on_close');
    if (my $t = $server->{request_timeout}) {
        $self->{timer} = EV::timer($t, 0, sub { $self->_timeout });
    }
    my $ok = eval { $code->(_method_cb($self, '_respond')); 1 };
    my $error = $@;
    Kamado::Server::_forked() if Kamado::current_pid() != $server->{pid};
    if (!$ok) {
        Kamado::Server::Errors::log_error($env, "app died: $error");
        $self->_fail;
    }
    return $self;
}

# The responder: a whole response, or [status, headers] and a writer.
sub _respond {
    my ($self, $res) = @_;
    Kamado::Server::_forked() if Kamado::current_pid() != $self->{server}{pid};
    die "responder called twice\n" if $self->{state} ne 'waiting' && $self->{state} ne 'gone';
    die "response is not an array\n" if ref $res ne 'ARRAY';
    if ($self->{state} eq 'gone') {
        # the client left before the answer: nothing to send
        $self->{state} = 'done';
        return @$res == 2 ? $self : ();
    }
    my ($server, $fd, $env) = @$self{qw(server fd env)};
    my $loop = $self->{server}{loop};
    if (@$res == 3) {
        $self->{state} = 'done';
        if ($loop->serving($fd) != $self->{id}) {
            $self->{status} = 499;
            return $self->_finish;
        }
        if ($res->[0] eq '101' && $env->{'psgix.io'}) {
            my $up = Kamado::Server::upgrade($server, $fd, $env, $res);
            Kamado::Server::Errors::framing_error($server, $fd, $env, $up) if defined $up && !$up;
        } else {
            Kamado::Server::Response::respond($server, $fd, $env, $res);
        }
        _recorded($self);
        return $self->_finish;
    }
    die "response is not [status, headers]\n" if @$res != 2 || ref $res->[1] ne 'ARRAY';
    if ($res->[0] eq '101' && $env->{'psgix.io'}) {
        my $up = Kamado::Server::upgrade($server, $fd, $env, $res);
        die $loop->framing_error . "\n" if defined $up && !$up;
        $self->{state} = 'done';
        _recorded($self);
        $self->_finish;
        return $self;
    }
    my $head = $loop->stream_head($fd, $self->{id}, $res->[0], $res->[1]);
    die $loop->framing_error . "\n" if defined $head && !$head;
    $self->{status} = $res->[0];
    # (kept for the log line only: an app's headers live as long as its stream)
    $self->{headers} = $res->[1] if $server->{access_log};
    return $self->gone if !defined $head;
    $self->{state} = 'writing';
    # --stream-heartbeat: an event stream's last write, and how it ended
    return $self unless $server->{heartbeat};
    for (my $i = 0; $i < $res->[1]->@*; $i += 2) {
        @$self{qw(sse last tail)} = (1, Time::HiRes::time(), "\n\n")
            if lc $res->[1][$i] eq 'content-type' && $res->[1][$i + 1] =~ m{\Atext/event-stream}i;
    }
    return $self;
}

# The response was sent in one go by the server's usual path: the loop's
# record of it is the stream's, for its access-log line (written when the
# stream ends, after which the loop may have served others).
sub _recorded {
    my ($self) = @_;
    @$self{qw(status headers bytes)} = ($self->{server}{loop}->response_record)[0 .. 2] if $self->{server}{access_log};
}

=head1 NAME

Kamado::Server::Stream - a response an async worker sends later, and its writer

=head1 SYNOPSIS

    # in an app served by kamado --async
    sub {
        my ($env) = @_;
        return sub {
            my ($responder) = @_;
            my $w = $responder->([200, ['Content-Type' => 'text/event-stream']]);
            my $guard = start_upstream(on_token => sub {
                $w->write("data: $_[0]\n\n") or return;    # false: the client left
            }, on_done => sub { $w->close });
            $w->on_close(sub { undef $guard });              # the client left: cancel
        };
    }

=head1 DESCRIPTION

The writer that the responder of a delayed response returns in an async
worker (L<Kamado::Server::Async>). Its methods never block: what the
client does not take at once is held by the event loop and sent as the
client reads.

=head1 METHODS

=over

=item write($bytes)

Sends a piece of the body (chunked for an HTTP/1.1 client when the
response has no Content-Length). Returns true, or false when the client
has gone away (then the piece is dropped, and so is everything after).
A stream that holds more than B<--write-buffer> bytes when the app writes
again is closed as a client too slow, as a write timeout would: an app
that produces faster than its client reads waits for C<poll_cb>.

=cut

sub write {
    my ($self, $data) = @_;
    return 0 if $self->{state} ne 'writing' || Kamado::current_pid() != $self->{server}{pid};
    return 1 if !defined $data || !length $data;
    my $held = $self->{server}{loop}->stream_write($self->{fd}, $self->{id}, $data);
    if (!defined $held) {
        $self->gone;
        return 0;
    }
    $self->{bytes} += length $data;
    @$self{qw(last tail)} = (Time::HiRes::time(), substr($self->{tail} . substr($data, -2), -2)) if $self->{sse};
    return 1;
}

=item poll_cb($cb)

Backpressure, as in L<Feersum>: C<$cb> is called with the writer each
time what the stream holds has all been sent (at once if nothing is
held), until C<poll_cb(undef)>. An app that writes from C<$cb> sends as
fast as its client reads, and never more than one piece ahead.

=cut

sub poll_cb {
    my ($self, $cb) = @_;
    $self->{poll_cb} = $cb;
    $self->_arm_poll if $cb;
    return;
}

sub _arm_poll {
    my ($self) = @_;
    return if $self->{state} ne 'writing' || !$self->{poll_cb} || $self->{polling};
    $self->{polling} = 1;
    $self->{server}{loop}->stream_drain($self->{fd}, $self->{id}) // $self->gone;
}

# The loop has sent all that the stream held.
sub drained {
    my ($self) = @_;
    $self->{polling} = 0;
    my $cb = $self->{poll_cb} or return;
    return if $self->{state} ne 'writing';
    # (from an idle watcher when the callback wrote nothing: it runs
    # again after the loop's other events, not in a tight loop)
    my $before = $self->{bytes} // 0;
    _guarded($self, $cb, $self);
    return unless $self->{poll_cb} && $self->{state} eq 'writing';
    if (($self->{bytes} // 0) != $before) {
        $self->_arm_poll;
    } else {
        $self->{idle} = EV::idle(sub { delete $self->{idle}; $self->_arm_poll });
    }
}

=item on_close($cb)

C<$cb> is called once when the client goes away before the body is ended
(the socket closed or reset, a write failed or timed out): the time to
cancel an upstream call. The same is in the env as
C<< $env->{'kamado.on_close'}->($cb) >>, for an app that has not answered
yet. The psgix.cleanup handlers run after the stream ends, either way.
A client that shuts down its sending side (a half-close) counts as gone,
as nginx counts it: the loop sees the same end of input either way.

=cut

sub on_close {
    my ($self, $cb) = @_;
    push $self->{on_close}->@*, $cb if $self->{state} ne 'done';
    return;
}

=item close

Ends the body; what the stream holds is sent first.

=cut

sub close {
    my ($self) = @_;
    return if $self->{state} ne 'writing' || Kamado::current_pid() != $self->{server}{pid};
    $self->{state} = 'done';
    my $ended = $self->{server}{loop}->stream_end($self->{fd}, $self->{id});
    Kamado::Server::Errors::log_error($self->{env}, $self->{server}{loop}->framing_error)
        if $ended && $ended == Kamado::Loop::BODY_MISMATCH;
    $self->_finish;
    return;
}

=item alive

Whether the client is still there.

=back

=cut

sub alive { $_[0]{state} eq 'writing' || $_[0]{state} eq 'waiting' ? 1 : 0 }

# The client left (posted by the loop, or found by a write): the app is
# told once.
sub gone {
    my ($self) = @_;
    return if $self->{state} eq 'done' || $self->{state} eq 'gone';
    my $answered = $self->{state} ne 'waiting';
    $self->{state} = 'gone';
    $self->{status} //= 499;           # (nginx's: the client closed the request)
    my $loop = $self->{server}{loop};
    $loop->close_conn($self->{fd}) if $loop->serving($self->{fd}) == $self->{id};
    _guarded($self, $_) for splice $self->{on_close}->@*;
    # a responder still to come finds the stream gone and does nothing
    $self->{state} = 'done' if $answered;
    $self->_finish;
    return;
}

# An app that died after its stream began: the client sees a cut body, or
# a 500 when nothing was sent.
sub _fail {
    my ($self) = @_;
    return if $self->{state} eq 'done' || $self->{state} eq 'gone';
    my $loop = $self->{server}{loop};
    if ($self->{state} eq 'waiting' && $loop->serving($self->{fd}) == $self->{id}) {
        Kamado::Server::Errors::server_error($self->{server}, $self->{fd});
        _recorded($self);
    } elsif ($loop->serving($self->{fd}) == $self->{id}) {
        $loop->close_conn($self->{fd});
    }
    $self->{state} = 'done';
    $self->_finish;
}

# --request-timeout: a stream not answered by then gets a 504, one still
# streaming is closed.
sub _timeout {
    my ($self) = @_;
    delete $self->{timer};
    return if $self->{state} eq 'done' || $self->{state} eq 'gone';
    Kamado::Server::Errors::log_error($self->{env}, warn => "past --request-timeout ($self->{server}{request_timeout} s): the stream is closed");
    if ($self->{state} eq 'waiting') {
        $self->{state} = 'done';
        $self->{status} = 504;
        Kamado::Server::Errors::timeout_error($self->{server}, $self->{fd});
        _guarded($self, $_) for splice $self->{on_close}->@*;
        return $self->_finish;
    }
    $self->gone;
}

# --stream-heartbeat: an event stream idle since before $since gets a
# comment line, when what it wrote last ended an event.
sub heartbeat {
    my ($self, $since) = @_;
    return unless $self->{sse} && $self->{state} eq 'writing' && $self->{last} < $since && $self->{tail} eq "\n\n";
    $self->write(":\n\n");
}

# The stream is over: forgotten, logged (its own line: its status,
# headers and bytes, from its start), its cleanup handlers run.
sub _finish {
    my ($self) = @_;
    my $server = $self->{server};
    Kamado::Server::Async::stream_ended($server, $self->{fd}, $self);
    delete @$self{qw(timer idle poll_cb)};
    $self->{on_close} = [];
    if (my $log = $server->{access_log}) {
        # (a HEAD's body is not sent: the loop drops it)
        my $bytes = $self->{env}{REQUEST_METHOD} eq 'HEAD' ? 0 : $self->{bytes} // 0;
        my @record = ($self->{status} // 0, $self->{headers}, $bytes, $self->{start});
        $server->{native} ? $server->{loop}->log_request($self->{env}, @record) : $log->request($self->{env}, @record);
    }
    my $env = delete $self->{env};
    delete $env->{'kamado.on_close'};
    cleanup($env);
    return;
}

# Runs an app's callback as the loop's own: a die is logged, and the
# watchdog looks at how long it took.
sub _guarded {
    my ($self, $cb, @args) = @_;
    # (what is logged meanwhile is about this stream's request)
    local $Kamado::Log::REQUEST_ID = $self->{env}{'kamado.request_id'} if $self->{env};
    my $start = Time::HiRes::time();
    eval { $cb->(@args); 1 } or Kamado::Server::Errors::log_error($self->{env} // {}, "stream callback died: $@");
    Kamado::Server::Async::_watchdog($self->{server}, $self->{env}, $start) if $self->{env};
}

# The psgix.cleanup handlers of a request, once it is over.
sub cleanup {
    my ($env) = @_;
    my $handlers = $env->{'psgix.cleanup.handlers'} or return;
    for my $handler (splice @$handlers) {
        eval { $handler->($env); 1 } or Kamado::Server::Errors::log_error($env, "cleanup handler died: $@");
    }
    return;
}

1;
