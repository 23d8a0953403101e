package Kamado::Loop;
use 5.024;
use strict;
use warnings;

use Kamado ();    # the class is in the XS (xs/Loop*.xsh over src/loop/)
use Kamado::Options ();

# the limits new requires, named as the options that set them
use constant LIMITS => qw(keepalive_timeout header_timeout read_timeout write_timeout max_keepalive_reqs
    max_connections max_request_body min_body_rate write_buffer expect_to_app forwarded_host);

# settings(%given): new's settings, with the option table's default for
# each limit not given (the loop has no defaults of its own).
sub settings {
    my ($class, %given) = @_;
    $given{$_} //= Kamado::Options::default($_) for LIMITS;
    return \%given;
}

1;
__END__

=head1 NAME

Kamado::Loop - a worker's event loop, the boundary between C and Perl

=head1 SYNOPSIS

    my $loop = Kamado::Loop->new(\@listen_fds, \@env_templates, Kamado::Loop->settings(
        keepalive_timeout => 5, write_timeout => 60, write_buffer => 65536,
    ));
    while (1) {
        my ($fd, $env, $body_kind) = $loop->next_request(1000) or next;
        my $res = $app->($env);
        my $ok = $loop->write_response($fd, @$res);
        warn $loop->framing_error, "\n"
            if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
    }

=head1 DESCRIPTION

The event loop of one worker, written in C (F<src/loop/>, its interface
F<src/loop/kd_conn.h>), seen from Perl. It owns every socket: it accepts,
reads heads (and bodies that fit, or are spooled to a file), keeps idle
keep-alive connections, answers malformed requests itself, and sends what a
slow reader has not taken yet. Perl is called only with a complete request,
as a file descriptor number (the connection) and a PSGI C<%env>.

The server owns the framing of every response. The head is built by
F<src/proto/kd_head.c> from the app's status and headers, the body framed by
F<src/proto/kd_frame.c> (chunk lines, the cut at Content-Length, the verdict
on a body too long or too short), and whether the connection carries
another request is decided there too. Kamado::Server is the only caller.

Connections cross as descriptor numbers; a number that is not serving a
request croaks (a caller bug). I/O failures return C<undef> with C<$!> set.

=head1 CONSTANTS

=over

=item Kamado::Loop::BODY_MISMATCH

What the write methods return (a true value) when the body did not match
its Content-Length: cut at the length, or short of it; the connection is
closed after it and C<framing_error> says which.

=back

C<Kamado::BODY_NONE>, C<BODY_LENGTH>, C<BODY_CHUNKED> and C<BODY_FILE>
are the kinds of request body C<next_request> reports (see L<Kamado>).

=head1 METHODS

=head2 Making one

=over

=item new(\@FDS, \@TEMPLATES, \%SETTINGS)

A loop over the listening sockets FDS (1 to 32), each with its C<%env>
template (the keys that do not change from request to request). SETTINGS:
C<keepalive_timeout>, C<header_timeout>, C<read_timeout>,
C<write_timeout> (seconds), C<max_keepalive_reqs>, C<max_connections>,
C<max_request_body>, C<min_body_rate>, C<write_buffer> (bytes),
C<expect_to_app> (the app answers C<Expect: 100-continue> itself),
C<max_streams> (an async worker's requests served at once; 0: no cap),
C<trusted_proxies> (address blocks, or C<unix:>) and C<proxy_protocol>
(a flag per listener). Every limit must be given (the loop has no
defaults); croaks on a missing or bad one.

=item settings(%SETTINGS)

A class method: SETTINGS for C<new>, with the default of Kamado::Options'
table for each limit not given.

=item presize_templates(\@ENV_TEMPLATES)

A class method: gives each template the room C<new> gives it for every
key a request adds. Called in the generation before it forks
(L<Kamado::Server>'s C<prepare>), so that the workers' C<new> leaves the
templates they share with it as they are.

=item set_pools(\@ROUTES, MINE, RECV_FD, LISTEN)

With C<--pool>: ROUTES is C<[[PREFIX, SEND_FD], ...]>, the default pool's
prefix empty; a request whose path starts with another pool's prefix is
handed to that pool over SEND_FD. MINE is this worker's pool, RECV_FD its
queue, LISTEN whether it also accepts.

=item request_ids(PREFIX, GLOB)

From now on each C<%env> gets C<kamado.request_id>, PREFIX and a count
from 1, and the scalar of GLOB holds it until the next C<next_request>
(L<Kamado::Log> reads it).

=item scoreboard(BOARD, SLOT)

Reports this worker's state and counters in SLOT of a
L<Kamado::Scoreboard>.

=item access_log(FD, FORMAT)

From now on keeps what the access log needs, and a buffer of lines for
FD. True when FORMAT (a LogFormat string) is compiled here
(F<src/proto/kd_logfmt.c>) and C<log_request> makes the lines; false when
the caller makes them (C<log_line>).

=back

=head2 Requests

=over

=item next_request(TIMEOUT_MS)

Waits up to TIMEOUT_MS for a complete request and returns C<(FD, ENV,
BODY_KIND)>, and with the access log a fourth value, the count of requests
the loop answered itself meanwhile (C<take_answers>); the empty list when
the time ran out. Croaks when the loop itself fails. ENV holds an empty
C<psgix.cleanup.handlers> array, and, when the request has no body and
C<empty_input> gave a handle that is still open, that handle as
C<psgi.input>.

=item serve(TIMEOUT_MS, APP, \$STOP, \*IDLE, PID, LOG, \$SERVED, BUDGET, RETIRE_AT, CALL)

C<next_request(TIMEOUT_MS)> when CALL is false. When it is true, the
worker's request cycle for the plain requests, with APP called from C so
that only the app's own Perl runs: while a request has no body, no
C<Upgrade>, C<psgi.input> from C<empty_input>, and no answers to log,
APP is called with its ENV (in scalar context, in an eval); when the
process is still PID, C<psgix.harakiri.commit> unset, and the answer
C<[STATUS, [HEADERS], [BODY]]> (plain arrays) that C<write_response>
writes whole with no cleanup handler left to run, the access-log line is
made (LOG true: the format C<access_log> made), the env is done
(C<env_done>), the signals that came are dispatched, and the next
request follows unless $STOP or the scalar of the glob IDLE is true.
With BUDGET (not 0) each request it serves adds one to $SERVED, and it
returns -2 once $SERVED reaches BUDGET; with RETIRE_AT (not 0, a time as
C<Time::HiRes::time> gives it) it returns -3 after a request it served
once that time has come.
Returns C<next_request>'s values for a request it did not call APP for;
those and C<(RESPONSE, CLEANUP)>, the answer and the cleanup handlers'
array as it was before the call (with C<$@> as the eval left it), when
it stopped after the call; those and what C<write_response> returned
when it stopped after the write; the empty list when the time ran out;
-1 when a flag was set after a request it served. The caller goes on
from that point (L<Kamado::Server>'s C<handle_request>).

=item empty_input(FH)

From now on FH is the C<psgi.input> of each request without a body, while
it is open.

=item env_done

The caller holds the last ENV C<next_request> gave no more: its values go
now, and its hash is reset to serve the next request when nothing else
holds it.

=item read_body(FD, MAX)

Up to MAX bytes of the request body (decoded when chunked), C<""> at its
end, C<undef> with C<$!> on an error or timeout.

=item body_file(FD)

The descriptor of the temporary file holding the whole body, when the loop
spooled it (C<BODY_FILE>).

=item serving(FD)

A number for the request being served on FD, never reused; 0 when FD serves
none.

=item close_conn(FD)

Closes the connection of the request being served; nothing when it is
closed already.

=back

=head2 Responses

Each returns true when the response (or the piece) went out, or was handed
to the loop to send; C<BODY_MISMATCH> as above; false when the head was
refused and nothing was written (C<framing_error> says why: the caller
answers 500); C<undef> with C<$!> when the client went away. The methods
that end a response (C<write_response>, C<write_file_response>,
C<write_end>) finish the request: the connection then waits for the next
one or is closed.

=over

=item write_response(FD, STATUS, \@HEADERS, \@BODY)

A whole response, the head and the body in one C<sendmsg>; what the
socket does not take at once the loop sends as the client reads.

=item write_file_response(FD, STATUS, \@HEADERS, IN_FD, OFFSET, LENGTH)

A response whose body is LENGTH bytes of the file IN_FD from OFFSET, sent
with C<sendfile>; what the client does not take at once the loop sends
from its own duplicate of IN_FD.

=item write_head(FD, STATUS, \@HEADERS, [CONTENT_LENGTH])

The head of a streamed response: chunked (HTTP/1.1) or ended by the close
(HTTP/1.0) unless the headers or CONTENT_LENGTH give a length.

=item write_body(FD, DATA)

A piece of a streamed body, framed: a chunk, or bytes counted against the
length (past it, cut: see C<BODY_MISMATCH>). An empty piece sends nothing.

=item write_end(FD)

Ends a streamed body (the last chunk) and finishes the request.

=back

The three write what the socket takes at once and hold the rest for the
loop (in memory up to C<write_buffer>, in a temporary file past it, within
the worker's totals), after what the connection holds already: a slow
reader does not hold the worker, which goes on producing; held bytes go out
as the next pieces are written, and after C<write_end> as the client
reads. Only past the totals does a call wait for the client (up to
C<write_timeout> without progress).

=over

=item write_error(FD, STATUS)

The server's own short answer for STATUS, then the close.

=item framing_error

Why the last head was refused, or its body did not match its length; undef
when neither.

=item upgrade(FD, STATUS, \@HEADERS)

A C<101>: sends the head as given (C<Connection: Upgrade> included) and
hands the connection to the app, which holds a duplicate of the socket
(C<psgix.io>); the loop forgets it and closes its own descriptor. True;
false for a refused head (nothing written); undef if the client went
away.

=back

=head2 Streams (async workers)

An async worker (L<Kamado::Server::Async>) polls the loop from its own:
C<next_request(0)> when C<epoll_fd> is readable, and at least once a
second for the deadlines. A request its app answers later becomes a
stream: the loop watches its socket for the client's close and holds
what the client does not take yet. Every call takes the request's id
(C<stream_begin>'s), so a call for a stream gone does nothing, even if
the descriptor serves another connection by then.

=over

=item epoll_fd

The loop's epoll descriptor, readable when C<next_request> has work.

=item streams

The requests being served now.

=item stream_begin(FD)

The request on FD is answered later: returns its id, or 0 when it is
gone.

=item stream_head(FD, ID, STATUS, \@HEADERS)

Sends the head of a streamed body without blocking (held if the socket
does not take it). True; false for a refused head (C<framing_error> says
why); undef when the stream is gone.

=item stream_write(FD, ID, DATA)

A piece of the body, framed: returns the bytes the loop holds (0: all
sent), or undef when the stream is gone (closed now). A stream that
holds more than C<write_buffer> bytes when written again is closed.
Croaks on characters.

=item stream_drain(FD, ID)

Asks for a drained event once nothing is held (at once if nothing is).

=item stream_end(FD, ID)

Ends the body; what is held is sent, then the request finishes as after
C<write_end>. Returns as C<write_end> does; undef when the stream is
gone.

=item stream_events

What became of streams since the last call, three values each: FD, ID,
and 1 (gone: closed before it was ended, the client left or a write
failed or timed out) or 2 (drained). C<next_request> returns nothing
while events wait.

=back

=head2 The access log

=over

=item log_request(\%ENV)

=item log_request(\%ENV, STATUS, \@HEADERS, BODY_BYTES, START)

The line of the request just served, in the format C<access_log>
compiled, to the buffer. Given the response's record too (C<\@HEADERS>
may be undef), the line of a request that ends after others were served,
an async worker's stream: the record of the request just served is left
as it is.

=item log_line(LINE)

A line made by the caller (with its newline), to the buffer.

=item log_flush([FD])

Writes the buffer; given FD, writes there from now on (after USR1). False
with C<$!> when a write failed since the last call.

=item response_record

The request last served: C<(STATUS, \@HEADERS, BODY_BYTES, START, NOW)>;
STATUS 0 when no head went out.

=item take_answers

The requests the loop answered itself (400, 408, 413, ...) since the last
call, each C<[STATUS, BODY_BYTES, LISTENER, REMOTE_ADDR, REMOTE_PORT,
REQUEST_LINE, TIME]>, then the count of those it could not keep, if any.

=item count_blocked

Counts, in this worker's scoreboard slot, one time the watchdog found the
loop held (C<kamado_loop_blocked_total>).

=item take_faults

The failures behind the loop's own 500s since the last call, each
C<[WHAT, ERRNO, REMOTE_ADDR, PATH, REQUEST_LINE]>, then the count of those
it could not keep, if any.

=back

=head2 Stopping

=over

=item last_words

From now on, a worker that ends in the middle of a request finishes what
this loop holds (F<src/loop/kd_lastwords.c>): on VTALRM (the kill of
B<--request-timeout>) the request gets a 504, on SEGV, BUS, FPE, ILL or
ABRT, or when the loop is destroyed mid-request (an C<exit> in the app), a
500, if no head of it went out; a child of the worker, holding only the
connections, sends what the loop held for slow readers (each closed after
C<write_timeout> without progress) and closes every connection in
order, its output shut down first, then what the client sends read for
up to 2 s. The process then ends by the same signal. A response being
written and requests not yet served are lost. False with C<$!> when the
signals could not be set.

=item stop_accepting([KEEP_QUEUE])

Stops listening; open connections get one more response, marked
C<Connection: close>, and idle ones a short grace. With KEEP_QUEUE the
pool's queue is served too (a stop, not a restart).

=item drained

True once, after C<stop_accepting>, no connection is open (and the queue,
if kept, is empty).

=item open_connections

How many connections the loop holds.

=back

=head1 SEE ALSO

L<Kamado::Server>, the only caller; F<src/loop/kd_conn.h>;
F<src/proto/kd_frame.h>.

=cut
