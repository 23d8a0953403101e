package Kamado;
use 5.024;
use strict;
use warnings;

our $VERSION = '0.01';

require XSLoader;
XSLoader::load('Kamado', $VERSION);

1;
__END__

=head1 NAME

Kamado - a fast PSGI server with an HTTP hot path in C and a prefork manager

=head1 SYNOPSIS

    kamado --listen :8080 --workers 8 app.psgi
    plackup -s Kamado app.psgi
    start_server --port 8080 -- kamado app.psgi

=head1 DESCRIPTION

Kamado serves PSGI applications. Its engine is plain C (F<src/>): each
worker runs an epoll loop that accepts connections, reads requests in 64 KiB
buffers, parses them strictly, and returns a complete request head to Perl
with C<%env> already built from a per-listener template. Perl reads the body
(when there is one), calls the application, and the engine writes the
response: status line, headers and an array body in one C<sendmsg>, file
bodies with C<sendfile>, streamed bodies chunked when HTTP/1.1 allows.

Idle keep-alive connections, connections still sending their head, and
connections still sending a body cost a file descriptor in some worker's
loop, never a whole worker: the loop reads the body before the app runs
(a Content-Length body into the connection buffer when it fits with the
head in 64 KiB, anything larger, and every chunked body, decoded, into an
unlinked temporary file), so slow clients cannot tie up the workers. So
does the unsent rest of a complete response to a client that reads slowly
(C<--write-buffer>: in memory, or in a temporary file for large answers; a
file body as a descriptor of its own, a streamed body as it is produced). Bodies
sent after C<Expect: 100-continue> are held by the loop too: it answers
C<100 Continue> itself (unless C<--expect-to-app> leaves that to the app,
whose worker then reads the body when the app asks for it, with
C<--read-timeout> and C<--min-body-rate> bounding it). A client that does
not read a streamed response holds its worker
for at most C<--write-timeout> per stalled write.

The command-line options are documented in L<kamado>.

=head1 PSGI

PSGI 1.1 with C<psgi.streaming> (delayed responses and the writer),
C<psgix.input.buffered> (the whole body is read before the app runs and
reaches it in memory up to C<--spool-threshold>, as a temporary file above
it; except
after C<Expect: 100-continue> with C<--expect-to-app>, where
C<psgix.input.buffered> is false and the body is read, and the
C<100 Continue> sent, when the app first reads C<psgi.input>, so an app
that answers without reading never asks for it),
C<psgix.harakiri> and C<psgix.harakiri.commit> (the worker exits after the
response), C<psgix.cleanup> and C<psgix.cleanup.handlers> (run after the
response is sent). C<psgix.io> is not provided.
Behind a proxy (C<--trusted-proxy>, C<--proxy-protocol>), C<REMOTE_ADDR>,
C<psgi.url_scheme> and the rest are the client's, and the socket's own
peer is C<kamado.peer_addr> and C<kamado.peer_port> (L<kamado/BEHIND A
PROXY>).

Kamado adds one key of its own: C<kamado.request_id>, the request's
id, a string such as C<6925f0a10a3f1-1234-17> (the start time of the
worker in hexadecimal, to the microsecond, its pid, and a count of its
requests), unique across workers, generations and restarts, made
without a system call. Kamado's error-log lines about the request carry
it (L<Kamado::Log>), and a CGI script sees it as C<UNIQUE_ID>, as under
Apache's mod_unique_id.

An application that dies, or returns something that is not a PSGI
response (see L</RESPONSE FRAMING> for the status and fields), gets a
C<500> with a generic body; the error and the request line
go to the error log (L<Kamado::Log>), with the request's id.

=head1 DATABASE HANDLES

Kamado keeps DBI connections warm, as Apache::DBI does under mod_perl:
C<< DBI->connect >> returns the worker's kept handle, checked before
reuse, and after each request whatever the request left on it (a
transaction, attributes, the server session) is undone, after the
response has been sent. CGI scripts get it by default in the registry,
perlrun and fork modes (C<--no-persistent-dbi> turns it off;
L<Kamado::CGI/DATABASE HANDLES>); a PSGI app asks for it with
C<enable 'Kamado::DBI'> (L<Plack::Middleware::Kamado::DBI>).
L<Kamado::DBI> says exactly what is kept and what is reset.

=head1 HTTP

HTTP/1.0 and 1.1, keep-alive (HTTP/1.0 with C<Connection: keep-alive>, as
ApacheBench's C<-k> sends), pipelining, chunked request bodies (decoded;
the app sees C<CONTENT_LENGTH>), C<Expect: 100-continue>.

Framing is strict, against request smuggling; these requests are answered
with the status shown and the connection is closed:

    Transfer-Encoding and Content-Length together          400
    Transfer-Encoding in an HTTP/1.0 request               400
    Transfer-Encoding not ending in "chunked", or repeated 400
    another coding before "chunked" (gzip, chunked)        501
    Content-Length repeated, signed, a list, not digits    400
    a malformed chunk size, extension, trailer or framing  400
    a Host that is not host[:port], userinfo in a target   400
    obs-fold, bare CR, bare LF, NUL, space before a colon  400
    HTTP/1.1 without exactly one Host                      400
    an HTTP version other than 1.x                         505
    Expect other than 100-continue (HTTP/1.1)              417
    a path with "%" not followed by two hex digits, or %00 400
    a body over --max-request-body                         413

The query string is passed to the app undecoded, as Apache and nginx pass
it, so its percent-encoding is the app's to judge. Bytes that RFC 3986 does
not allow in a target but that cannot change framing (C<| ^ { }>, quotes,
raw UTF-8 or Shift_JIS) are accepted: browsers send some of them raw, and
old Japanese mobile clients sent raw Shift_JIS. For an absolute-form target
(C<GET http://host/path>), C<HTTP_HOST> is the target's host, not the Host
field (RFC 9112 3.2.2). Empty list elements in Transfer-Encoding are
skipped (RFC 9110 5.6.1); trailer fields are checked, then dropped.

After an error answer the server stops writing and reads (and drops) what
the client still sends for up to two seconds before closing, so the client
reads the answer instead of a connection reset.

Header fields whose name contains an underscore are not passed to the app:
C<X_Forwarded_For> would otherwise reach it as C<HTTP_X_FORWARDED_FOR>,
indistinguishable from C<X-Forwarded-For> (nginx drops them too).

=head1 RESPONSE FRAMING

The server owns the framing of every response it sends: the app's status
and header fields are checked, and the fields that say where a response
ends (C<Content-Length>, C<Transfer-Encoding>, C<Connection>) are written
by the server, never passed through. What the app (a PSGI app, or a CGI
script through its printed head) returns, and what the client gets, as
nginx does with a FastCGI application's response:

    the app returns                          the server
    a body longer than its Content-Length    sends Content-Length bytes, then
                                             closes the connection (logged)
    a body shorter than its Content-Length   sends what there is, then closes
                                             (the client sees it cut; logged)
    Content-Length not 1*DIGIT (letters, a   500 (logged)
      sign, a space inside, a list, empty)
      or above 2^63-1
    Content-Length twice, different values   500 (logged)
    Content-Length twice, the same value     one Content-Length
    Content-Length with spaces around it     sent without them
    Transfer-Encoding: chunked alone         the app's chunks decoded and the
                                             body framed again (chunked, or
                                             the close for HTTP/1.0); a
                                             malformed encoding: a 500, or,
                                             streamed, a cut body and the
                                             close (logged)
    Transfer-Encoding other than that, or    500 (logged): the server frames
      twice, or with a Content-Length        the body itself
    Connection                               dropped; a "close" token in it
                                             closes after the response
    Keep-Alive, Proxy-Connection             dropped
    a status 100 to 199 (no final answer),   500 (logged)
      below 100, above 999, or not a whole
      number ("OK", "200 OK", 200.5)
    204 with a Content-Length                sent without it, no body
    304 with a Content-Length                kept, no body
    HEAD                                     the GET's fields (the app's
                                             Content-Length, or the length
                                             of the body it returned), no body
    CR, LF or NUL in a field value, a field  500 (logged)
      name that is not a token
    no Content-Length, a body of known       Content-Length of the body
      length (an array, a file)
    no Content-Length, a streamed body       chunked (HTTP/1.1), or the end
                                             of the body is the close (1.0)

The error-log line names the request and the reason, as
C<... [error] worker PID [ID]: GET /path HTTP/1.1: invalid response from
the app: bad Content-Length>. A streamed body's head is sent before its length is
known to be wrong, so it cannot say C<Connection: close>; the close after
it does.

=head1 LIMITS

Compiled in (F<src/proto/kd_parser.h>, F<src/loop/kd_conn.h>):

    request line, with its CRLF   8192 bytes        414
    request head, with its CRLFs  65536 bytes       431
    header fields                 100               431
    chunk-size line               4096 bytes        400
    trailer fields, all together  8192 bytes        400

and set by options (L<kamado>): C<--max-request-body> (413, default 1 GiB),
C<--max-connections>, C<--min-body-rate> (408 for a body trickled slower
than 500 bytes a second on average, after a C<--read-timeout> allowance),
and the C<--header-timeout>, C<--read-timeout>,
C<--write-timeout> and C<--keepalive-timeout> deadlines, which are kept
with poll(2) deadlines, never with signals.

=head1 CONSTANTS

How a request brings its body, as C<< Kamado::Loop->next_request >> reports
it (the numbers are the C engine's, F<src/loop/kd_conn.h>):

=over

=item BODY_NONE

No body.

=item BODY_LENGTH

A Content-Length body the worker reads.

=item BODY_CHUNKED

A chunked body the worker decodes.

=item BODY_FILE

The event loop has the whole body in a temporary file already.

=back

=head1 FUNCTIONS

What a process of Kamado's asks of the kernel, in the XS
(F<xs/Process.xsh>); Kamado's own modules call them.

=over

=item set_parent_death_signal(SIGNAL)

The signal this process gets when its parent exits (prctl
C<PR_SET_PDEATHSIG>): a worker does not outlive its generation. True on
success.

=item set_child_subreaper()

Makes this process the reaper of its orphaned descendants (prctl
C<PR_SET_CHILD_SUBREAPER>): what a dead worker left running becomes the
generation's. True on success.

=item spawn_next(ASK_FD, TELL_FD, DEATHSIG)

The fork loop of L<Kamado::Prefork::Template>: reads what to fork next
from ASK_FD (a pool and a scoreboard slot, two native 32-bit integers;
slot -1 for none), forks the worker through a first child that exits at
once (so that it becomes the child of the nearest subreaper, the
generation), answers its pid (or minus errno) on TELL_FD as a 32-bit
integer, and waits for the next. Returns in each worker, with its (pool,
slot), once its parent is the template's parent: ASK_FD and TELL_FD are
closed there, and DEATHSIG is due when that parent dies (the worker exits
at once if it died already). In the template, returns C<(0)> when a
signal came (its handler runs, and the caller calls again) and the empty
list when ASK_FD is closed. The descriptors are plain ones, held by no
Perl handle.

=item resident_kb()

This process's resident set in KiB, from F</proc/self/statm> (what
C<--max-rss> compares); -1 when unknown.

=item release_free_memory()

Gives the allocator's free pages back to the kernel (glibc's
C<malloc_trim(0)>: every arena, inside the heap too). An async worker
calls it once most of a burst of streams has ended. True when memory
was given back.

=item current_pid()

This process's pid, noted once and forgotten in a forked child (perl's
C<$$> asks the kernel each time).

=item request_timer(SOFT, HARD)

Arms C<--request-timeout>'s two timers, SOFT and HARD seconds from now:
the soft one sends USR2 (a die in the app), the hard one VTALRM (the end
of the worker). C<0, 0> disarms them. False, with C<$!>, on failure.

=item borrow_request_timer(LIMIT, GRACE)

Sets the timers to LIMIT seconds (the hard one GRACE later) unless the
server's own deadline comes sooner; 1 if it set them, 0 if the server's
stay. For a CGI run in the worker.

=item return_request_timer()

Puts back the server's deadline that C<borrow_request_timer> replaced,
less the time spent.

=back

=head1 SEE ALSO

L<kamado>, L<Plack::Handler::Kamado>, L<Kamado::Prefork>, L<Plack>,
L<Server::Starter>.

=cut
