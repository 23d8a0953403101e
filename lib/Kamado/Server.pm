package Kamado::Server;
use 5.024;
use strict;
use warnings;

use Errno ();
use Kamado;
use Kamado::BodyReader;
use Kamado::DeferredInput;
use Kamado::Log;
use Kamado::Writer;
use Plack::Util;
use POSIX ();
use Scalar::Util ();
use Stream::Buffered;
use Time::HiRes ();

# One worker's request loop: the C engine hands over complete request
# heads; this module owns the PSGI semantics (body buffering, calling the
# app, streaming, cleanup handlers, harakiri) and the worker's lifetime.

# --request-timeout: how long after the soft stop the worker is killed
use constant REQUEST_GRACE => 2;
use constant TIMEOUT_ERROR => "Kamado: request timeout\n";
# a body object is read ahead up to --write-buffer bytes in memory, and up
# to this many times that in a temporary file
use constant READ_AHEAD_FILES => 8;

my @SERVER_ERROR_HEADERS = ('Content-Type' => 'text/plain', 'Content-Length' => 21);

sub new {
    my ($class, %args) = @_;
    my $self = bless {
        app               => $args{app},
        listeners         => $args{listeners},          # [Kamado::Listener]
        max_requests      => $args{max_requests} || 0,  # 0: unlimited
        max_age           => $args{max_age} || 0,       # seconds; 0: unlimited
        max_rss           => $args{max_rss} || 0,       # MB; 0: unlimited
        request_timeout   => $args{request_timeout} || 0,  # seconds; 0: none
        spool_threshold   => $args{spool_threshold} // 1024 * 1024,
        loop_settings     => $args{loop_settings} || {},
        # --expect-to-app: the app reads psgi.input to accept an Expect upload
        expect_to_app     => ($args{loop_settings} || {})->{expect_to_app},
        write_buffer      => ($args{loop_settings} || {})->{write_buffer} // 1 << 20,
        on_drain          => $args{on_drain},           # called when accepting stops, with why
        on_tick           => $args{on_tick},            # called when a second passes without a request
        scoreboard        => $args{scoreboard},         # Kamado::Scoreboard, or undef
        slot              => $args{slot},               # this worker's slot in it
        pools             => $args{pools},  # {routes => [[prefix, send fd]], mine, recv_fd, listen}
        access_log        => $args{access_log},  # Kamado::AccessLog, or undef
        stopping          => 0,
    }, $class;
    return $self;
}

# Asks the loop to stop after the request in progress. Called from signal
# handlers (Perl's deferred signals make that safe): the engine stops
# accepting at once, so a response being prepared already says
# Connection: close.
sub stop {
    my ($self) = @_;
    $self->{stopping} = 1;
    # (1: what waits in this worker's pool queue is served too)
    $self->{loop}->stop_accepting(1) if $self->{loop};
}

# Serves requests until stop() is called or the request budget is spent.
sub run {
    my ($self) = @_;
    my @listeners = $self->{listeners}->@*;
    my %settings = $self->{loop_settings}->%*;
    $settings{proxy_protocol} = [map { $_->proxy_protocol ? 1 : 0 } @listeners]
        if grep { $_->proxy_protocol } @listeners;
    my $loop = Kamado::Loop->new(
        [map { $_->fd } @listeners],
        [map { $_->env_template } @listeners],
        \%settings,
    );
    $loop->set_pools(@{ $self->{pools} }{qw(routes mine recv_fd listen)}) if $self->{pools};
    $self->{loop} = $loop;
    $self->{pid} = Kamado::current_pid();    # the worker (see _forked)
    # each request's id: in its env, and in $Kamado::Log::REQUEST_ID while
    # it is served (until the next next_request)
    $loop->request_ids(Kamado::Log::request_id_prefix(), \*Kamado::Log::REQUEST_ID);
    # the engine reports its state there itself: no Perl call per request
    $loop->scoreboard($self->{scoreboard}, $self->{slot}) if $self->{scoreboard} && defined $self->{slot};
    my $log = $self->{access_log};
    # (native: the loop makes the lines itself)
    my $native = $log && $log->attach($loop);
    local $SIG{PIPE} = 'IGNORE';
    # the soft stop of --request-timeout: a die in whatever Perl code runs
    local $SIG{USR2} = sub {
        return unless $self->{timer_armed};
        # (the kill may follow: what is logged already goes out first)
        $self->{access_log}->flush if $self->{access_log};
        # logged here: an app that swallows the die is killed without a word
        _log_error($self->{timed_env}, warn => "past --request-timeout ($self->{request_timeout} s): interrupting it");
        die TIMEOUT_ERROR;
    } if $self->{request_timeout};
    my $budget = $self->{max_requests};
    my $retire_at = $self->{max_age} && Time::HiRes::time() + $self->{max_age};
    my $max_kb = $self->{max_rss} * 1024;
    my $timeout = $self->{request_timeout};
    # the app, wrapped to start the clock and answer 504 (see _timed_app)
    local $self->{app} = $self->_timed_app($self->{app}) if $timeout;
    my $limited = $budget || $max_kb || $retire_at || $timeout;
    my $served = 0;
    my $why;
    while (!$self->{stopping}) {
        (my ($fd, $env, $body, $answers) = $loop->next_request(1000)) or do {
            $self->{on_tick}->() if $self->{on_tick};
            $log->idle($self->{listeners}) if $log;
            last if $retire_at && Time::HiRes::time() >= ($why = 'max_age', $retire_at)[1];
            next;
        };
        $self->handle_request($fd, $env, $body);
        if ($log) {
            $native ? $loop->log_request($env) : $log->request($env);
            $log->answers($self->{listeners}) if $answers;
        }
        next unless $limited;    # the common case: one test a request
        $self->_disarm_request_timer if $timeout;    # app, response and cleanup done
        last if $budget && ++$served >= ($why = 'max_requests', $budget)[1];
        last if $max_kb && ($why = 'max_rss') && $self->_over_rss($env, $max_kb);
        last if $retire_at && Time::HiRes::time() >= ($why = 'max_age', $retire_at)[1];
    }
    # why it stops, for the generation's count of exits (Kamado::Scoreboard)
    $self->{why} = $self->{stopping} ? $self->{why} // 'stop' : $why;
    $self->_drain;
    undef $Kamado::Log::REQUEST_ID;
    $log->detach($self->{listeners}) if $log;
    undef $self->{loop};
    return $served;
}

# --access-log: the request just served (the loop recorded its
# response), and the requests the loop answered itself meanwhile.
sub _log_request {
    my ($self, $env, $answers) = @_;
    my $log = $self->{access_log};
    $log->{native} ? $self->{loop}->log_request($env) : $log->request($env);
    $log->answers($self->{listeners}) if $answers;
}

# --request-timeout: the soft stop (USR2, a die in the app) at the
# timeout, the kernel's kill (VTALRM, default action) REQUEST_GRACE seconds
# later for an app that swallowed the die or is stuck in C. The clock runs
# from the app's call to the end of the request (response and cleanup
# handlers), when run() stops it; an app interrupted before it returned
# answers 504.
sub _timed_app {
    my ($self, $app) = @_;
    return sub {
        my ($env) = @_;
        $self->_arm_request_timer($env);
        my $res = eval { $app->($env) };
        return $res if defined $res;
        return [504, ['Content-Type' => 'text/plain'], ['Gateway Timeout']] if $@ eq TIMEOUT_ERROR;
        die $@;
    };
}

sub _arm_request_timer {
    my ($self, $env) = @_;
    my $t = $self->{request_timeout};
    $self->{timed_env} = $env;
    $self->{timer_armed} = 1;
    Kamado::request_timer($t, $t + REQUEST_GRACE) or die "Can't set the request timers: $!\n";
    return 1;
}

sub _disarm_request_timer {
    my ($self) = @_;
    Kamado::request_timer(0, 0);
    $self->{timer_armed} = 0;
    $self->{timed_env} = undef;
}

# --max-rss, checked after each request (like Apache2::SizeLimit): a worker
# that has grown past it finishes what it holds and is replaced.
sub _over_rss {
    my ($self, $env, $max_kb) = @_;
    my $kb = Kamado::resident_kb();
    return 0 if $kb <= $max_kb;
    _log_error($env, warn => sprintf 'resident size %d MB is over --max-rss %d MB; replacing this worker',
        $kb / 1024, $self->{max_rss});
    return 1;
}

# Stops accepting, then serves what was already received: one more request
# on each open connection (answered with Connection: close: closing an
# idle keep-alive connection outright races with a client sending on it),
# and, on a stop, the connections waiting in this worker's pool queue. The
# engine's deadlines bound it: an idle connection gets 1 s, a partial
# request its --header-timeout or --read-timeout; after TERM the
# generation's --graceful-timeout bounds the whole.
sub _drain {
    my ($self) = @_;
    my $loop = $self->{loop};
    $loop->stop_accepting($self->{stopping} ? 1 : 0);
    $self->{on_drain}->($self->{why} // 'stop') if $self->{on_drain};
    my $log = $self->{access_log};
    until ($loop->drained) {
        (my ($fd, $env, $body, $answers) = $loop->next_request(100)) or do {
            $log->idle($self->{listeners}) if $log;
            next;
        };
        $self->handle_request($fd, $env, $body);
        $self->_log_request($env, $answers) if $log;
    }
}

# Runs the app for one request and sends its response.
sub handle_request {
    my ($self, $fd, $env, $body_kind) = @_;
    my $loop = $self->{loop};
    if ($body_kind) {
        $self->{body_failed} = undef;
        if ($self->{expect_to_app} && _expects_continue($env)) {
            my $request = $loop->serving($fd);
            $env->{'psgi.input'} = Kamado::DeferredInput->handle(sub { $self->_deferred_body($fd, $env, $body_kind, $request) });
            $env->{'psgix.input.buffered'} = 0;
        } else {
            # the server has answered any Expect itself (the loop holds
            # the body, or the read sends the 100): none left to the app
            delete $env->{HTTP_EXPECT};
            $self->_read_body($fd, $env, $body_kind) or return;
        }
    } else {
        $env->{'psgi.input'} = $self->_empty_input;
    }
    my $cleanup = $env->{'psgix.cleanup.handlers'} = [];

    my $res = eval { $self->{app}->($env) };
    _forked() if Kamado::current_pid() != $self->{pid};
    $self->{why} = 'harakiri', $self->stop if $env->{'psgix.harakiri.commit'};
    if ($body_kind && $self->{body_failed}) {
        # a deferred body failed: its 408/413/400 is sent, the app's answer is not
    } elsif (ref $res eq 'ARRAY' && @$res == 3 && ref $res->[2] eq 'ARRAY' && ref $res->[1] eq 'ARRAY') {
        # the common case, all in C; false but defined: a refused head
        my $sent = $loop->write_response($fd, @$res);
        $self->_framing_error($fd, $env, $sent) if defined $sent && (!$sent || $sent == Kamado::Loop::BODY_MISMATCH);
    } elsif (!defined $res) {
        _log_error($env, "app died: " . ($@ || 'returned undef'));
        $self->_server_error($fd);
    } elsif (ref $res eq 'ARRAY') {
        $self->_respond($fd, $env, $res);
    } elsif (ref $res eq 'CODE') {
        $self->_respond_delayed($fd, $env, $res);
    } else {
        _log_error($env, "app returned an invalid response: $res");
        $self->_server_error($fd);
    }

    if (@$cleanup) {
        for my $handler (@$cleanup) {
            eval { $handler->($env); 1 } or _log_error($env, "cleanup handler died: $@");
        }
    }
    $self->{why} = 'harakiri', $self->stop if $env->{'psgix.harakiri.commit'} && !$self->{stopping};    # set by a cleanup handler
}

# One read-only handle on an empty string serves every request without a
# body; a new one is made only if an app closed it.
sub _empty_input {
    my ($self) = @_;
    my $fh = $self->{empty_input};
    return $fh if $fh && defined fileno $fh;    # -1 while open (in memory)
    open $fh, '<', \(my $empty = '');
    return $self->{empty_input} = $fh;
}

# HTTP/1.1 "Expect: 100-continue" (the parser has refused any other
# expectation, and ignores it in HTTP/1.0, which has no 1xx answers), left
# to the app with --expect-to-app.
sub _expects_continue {
    my ($env) = @_;
    return exists $env->{HTTP_EXPECT} && $env->{SERVER_PROTOCOL} eq 'HTTP/1.1';
}

# The body of an Expect request, read when the app first reads its input;
# reading it sends the 100 Continue. Dies if it cannot be read: the error
# answer is sent already, and whatever the app returns is dropped.
sub _deferred_body {
    my ($self, $fd, $env, $kind, $request) = @_;
    die "Kamado: the request body can be read only while the request is served\n"
        if $self->{body_failed} || $self->{loop}->serving($fd) != $request;
    $self->_read_body($fd, $env, $kind)
        or die "Kamado: the request body could not be read ($self->{body_failed})\n";
    return $env->{'psgi.input'};
}

# Reads the whole body before the app runs (psgix.input.buffered): in
# memory below the spool threshold, in a temporary file above it.
sub _read_body {
    my ($self, $fd, $env, $kind) = @_;
    my $loop = $self->{loop};
    if ($kind == Kamado::BODY_FILE) {
        # the event loop has spooled it already (lib/Kamado.pm): a handle
        # of our own on its temporary file, or the bytes in memory when
        # they are few enough (--spool-threshold)
        open my $input, '<&', $loop->body_file($fd) or return $self->_body_failed($fd, $env);
        binmode $input;
        sysseek $input, 0, 0;
        my $size = -s $input;
        if ($size <= $self->{spool_threshold}) {
            my $buf = '';
            1 while length $buf < $size && sysread $input, $buf, $size - length $buf, length $buf;
            return $self->_body_failed($fd, $env) if length $buf != $size;
            close $input;
            open $input, '<', \$buf;
        }
        if (exists $env->{HTTP_TRANSFER_ENCODING}) {
            # decoded: the app sees a plain body of known length
            $env->{CONTENT_LENGTH} = $size;
            delete $env->{HTTP_TRANSFER_ENCODING};
        }
        $env->{'psgi.input'} = $input;
        return 1;
    }
    my $length = $kind == Kamado::BODY_LENGTH ? $env->{CONTENT_LENGTH} : undef;

    if (defined $length && $length <= $self->{spool_threshold}) {
        my $buf = '';
        while (length $buf < $length) {
            my $chunk = $loop->read_body($fd, $length - length $buf);
            return $self->_body_failed($fd, $env) if !defined $chunk || $chunk eq '';
            $buf .= $chunk;
        }
        open my $input, '<', \$buf;
        $env->{'psgi.input'} = $input;
        return 1;
    }

    local $Stream::Buffered::MaxMemoryBufferSize = $self->{spool_threshold};
    my $spool = Stream::Buffered->new($length // 0);
    my $read = 0;
    while (1) {
        my $chunk = $loop->read_body($fd, 65536);
        return $self->_body_failed($fd, $env) if !defined $chunk;
        last if $chunk eq '';
        $spool->print($chunk);
        $read += length $chunk;
    }
    return $self->_body_failed($fd, $env) if defined $length && $read != $length;
    if ($kind == Kamado::BODY_CHUNKED) {
        # the app sees a plain body of known length, as with Content-Length
        $env->{CONTENT_LENGTH} = $read;
        delete $env->{HTTP_TRANSFER_ENCODING};
    }
    $env->{'psgi.input'} = $spool->rewind;
    return 1;
}

sub _body_failed {
    my ($self, $fd, $env) = @_;
    $self->{body_failed} = "$!";
    if ($!{ETIMEDOUT}) {
        $self->{loop}->write_error($fd, 408);
    } elsif ($!{EFBIG}) {
        $self->{loop}->write_error($fd, 413);    # chunked, over --max-request-body
    } elsif ($!{EINVAL}) {
        $self->{loop}->write_error($fd, 400);    # malformed chunk
    } else {
        $self->{loop}->close_conn($fd);          # the client went away
    }
    return 0;
}

# Sends a [status, headers, body] response.
sub _respond {
    my ($self, $fd, $env, $res) = @_;
    my $loop = $self->{loop};
    my ($status, $headers, $body) = @$res;
    if (@$res != 3 || ref $headers ne 'ARRAY' || !_is_body($body)) {
        return $self->_invalid_response($fd, $env, 'not [status, headers, body]');
    }
    if (ref $body eq 'ARRAY') {
        my $ok = $loop->write_response($fd, $status, $headers, $body);
        $self->_framing_error($fd, $env, $ok) if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
        return;
    }
    if (Plack::Util::is_real_fh($body) && -f $body) {
        return $self->_respond_file($fd, $env, $status, $headers, $body);
    }
    # read ahead, so the event loop can send it for a slow client; a body
    # larger than that is streamed by the worker from where it got to
    my $ahead = $self->{write_buffer} && eval {
        Kamado::BodyReader->read_ahead($body, $self->{write_buffer}, READ_AHEAD_FILES * $self->{write_buffer});
    };
    if ($self->{write_buffer} && !$ahead) {
        _log_error($env, "body died: $@");
        $body->close if $body->can('close');
        return $self->_server_error($fd);
    }
    if ($ahead && !$ahead->{more}) {
        $body->close if $body->can('close');
        my $ok = $ahead->{file}
            ? $loop->write_file_response($fd, $status, $headers, fileno $ahead->{file}, 0, $ahead->{length})
            : $loop->write_response($fd, $status, $headers, $ahead->{chunks});
        $self->_framing_error($fd, $env, $ok) if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
        close $ahead->{file} if $ahead->{file};
        return;
    }
    my $ok = $loop->write_head($fd, $status, $headers);
    if (!$ok) {
        $self->_invalid_response($fd, $env, $loop->framing_error) if defined $ok;
        $loop->close_conn($fd) if !defined $ok;
        $body->close if $body->can('close');
        return;
    }
    my $sent = eval {
        my @start = !$ahead ? () : $ahead->{chunks} ? $ahead->{chunks}->@* : _file_chunks($ahead->{file});
        for my $chunk (@start) {
            $loop->write_body($fd, $chunk) or return 1;
        }
        while (defined(my $chunk = $body->getline)) {
            my $ok = $loop->write_body($fd, $chunk);
            die "Wide character in a PSGI response body\n" if defined $ok && !$ok;
            last if !$ok;
        }
        1;
    };
    _log_error($env, "body died: $@") if !$sent;
    $body->close if $body->can('close');
    $sent ? $self->_end($fd, $env) : $loop->close_conn($fd);
}

# Ends a streamed body, and logs a body that did not match its
# Content-Length (cut, or short: either way the connection was closed).
sub _end {
    my ($self, $fd, $env) = @_;
    my $ended = $self->{loop}->write_end($fd);
    _log_error($env, $self->{loop}->framing_error) if $ended && $ended == Kamado::Loop::BODY_MISMATCH;
}

# What read_ahead put in its temporary file, in pieces.
sub _file_chunks {
    my ($fh) = @_;
    my @chunks;
    sysseek $fh, 0, 0;
    while (sysread $fh, my $buf, 1 << 20) { push @chunks, $buf }
    close $fh;
    return @chunks;
}

# An array of strings, a filehandle, or an object with getline.
sub _is_body {
    my ($body) = @_;
    return 1 if ref $body eq 'ARRAY' || ref $body eq 'GLOB';
    return Scalar::Util::blessed($body) && $body->can('getline');
}

# A body that is a real file goes out with sendfile(2), from its current
# position to its end; what a slow client does not take at once, the event
# loop sends, from a descriptor of its own, while the worker goes on.
sub _respond_file {
    my ($self, $fd, $env, $status, $headers, $fh) = @_;
    my $offset = sysseek($fh, 0, 1) || 0;
    my $length = (-s $fh) - $offset;
    $length = 0 if $length < 0;    # a handle seeked past the end: an empty body
    my $ok = $self->{loop}->write_file_response($fd, $status, $headers, fileno $fh, $offset, $length);
    $self->_framing_error($fd, $env, $ok) if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
    close $fh;
}

# PSGI delayed response and streaming writer.
sub _respond_delayed {
    my ($self, $fd, $env, $code) = @_;
    my $loop = $self->{loop};
    my ($called, $answered, $writer);    # answered: bytes went to the client
    my $ok = eval {
        $code->(sub {
            my ($res) = @_;
            _forked() if Kamado::current_pid() != $self->{pid};
            die "responder called twice\n" if $called++;
            die "response is not an array\n" if ref $res ne 'ARRAY';
            if (@$res == 3) {
                $answered = 1;            # _respond answers even an invalid one
                return $self->_respond($fd, $env, $res);
            }
            die "response is not [status, headers]\n" if @$res != 2 || ref $res->[1] ne 'ARRAY';
            my $head = $loop->write_head($fd, $res->[0], $res->[1]);
            die $loop->framing_error . "\n" if defined $head && !$head;
            $answered = 1;
            return $writer = Kamado::Writer->new($loop, $fd, $head, sub { $self->_end($fd, $env) });
        });
        1;
    };
    _forked() if Kamado::current_pid() != $self->{pid};
    if (!$ok) {
        # (a timeout is logged where it struck)
        _log_error($env, "app died: $@") unless $@ eq TIMEOUT_ERROR;
        if ($writer) {
            $writer->abort;
        } elsif (!$answered) {
            # (a streaming app stopped by --request-timeout: as _timed_app)
            $@ eq TIMEOUT_ERROR ? $self->_timeout_error($fd) : $self->_server_error($fd);
        }
        return;
    }
    if (!$called) {
        _log_error($env, 'app never called the responder');
        $self->_server_error($fd);
    } elsif ($writer) {
        # a blocking server cannot outlive the app's call: end the body
        $writer->close;
    }
}

# A process the app forked has returned into the server: the connection
# and the request loop are the worker's, so it ends here, at once, without
# a byte to the client, the worker's cleanup or its END blocks.
sub _forked {
    POSIX::_exit(0);
}

# What write_response returned when it was not a plain success: false,
# a head refused (a 500 instead); BODY_MISMATCH, sent, with a body that
# did not match its Content-Length (logged).
sub _framing_error {
    my ($self, $fd, $env, $sent) = @_;
    return $self->_invalid_response($fd, $env, $self->{loop}->framing_error) if !$sent;
    _log_error($env, $self->{loop}->framing_error);
}

sub _invalid_response {
    my ($self, $fd, $env, $why) = @_;
    _log_error($env, "invalid response from the app: $why");
    $self->_server_error($fd);
}

# The generic answer to an app that failed; the details go to the log.
sub _server_error {
    my ($self, $fd) = @_;
    $self->{loop}->write_response($fd, 500, [@SERVER_ERROR_HEADERS], ['Internal Server Error']);
}

sub _timeout_error {
    my ($self, $fd) = @_;
    $self->{loop}->write_response($fd, 504, ['Content-Type' => 'text/plain'], ['Gateway Timeout']);
}

# A line about the request ENV, its request line first: at LEVEL, or
# error.
sub _log_error {
    my ($env, $level, $message) = @_ == 3 ? @_ : ($_[0], 'error', $_[1]);
    my $request = join ' ', grep defined, @$env{qw(REQUEST_METHOD REQUEST_URI SERVER_PROTOCOL)};
    Kamado::Log->log($level, "$request: $message");
}

1;
__END__

=head1 NAME

Kamado::Server - one worker's request loop

=head1 SYNOPSIS

    my $server = Kamado::Server->new(app => $app, listeners => \@listeners);
    local $SIG{TERM} = sub { $server->stop };
    $server->run;

=head1 DESCRIPTION

Serves PSGI requests on already-bound listeners until C<stop> is called or
C<max_requests> have been served, then answers the pipelined requests it
already received and closes its connections. The process manager
(L<Kamado::Prefork>) runs one per worker.

A process the app forks that returns into the server (from the app, or
through the responder of a delayed response) exits there at once with
status 0: it writes nothing to the connection and never serves as a
worker; a streaming writer used in such a process does nothing. A child
that exits by itself is not affected.

=cut
