package Kamado::Server::Errors;
use 5.024;
use strict;
use warnings;

use Kamado ();
use Kamado::ErrorResponse qw(error_response);
use Kamado::Log;

# What a worker answers when the app fails, and how it says so in the
# log. The client gets a generic status; the details (the request, and
# what went wrong) go to the error log only.

# The keys of the worker's hash this module owns (see Kamado::Server).
use constant FIELDS => ();

# What write_response returned when it was not a plain success: false,
# a head refused (a 500 instead); BODY_MISMATCH, sent, with a body that
# did not match its Content-Length (logged).
sub framing_error {
    my ($self, $fd, $env, $sent) = @_;
    return invalid_response($self, $fd, $env, $self->{loop}->framing_error) if !$sent;
    log_error($env, $self->{loop}->framing_error);
}

sub invalid_response {
    my ($self, $fd, $env, $why) = @_;
    log_error($env, "invalid response from the app: $why");
    server_error($self, $fd);
}

# The generic answer to an app that failed; the details go to the log.
sub server_error {
    my ($self, $fd) = @_;
    $self->{loop}->write_response($fd, error_response(500)->@*);
}

sub timeout_error {
    my ($self, $fd) = @_;
    $self->{loop}->write_response($fd, error_response(504)->@*);
}

# A line about the request ENV, its request line first: at LEVEL, or
# error; with ENV's request id (an async worker's stream may end while
# another request is served).
sub log_error {
    my ($env, $level, $message) = @_ == 3 ? @_ : ($_[0], 'error', $_[1]);
    local $Kamado::Log::REQUEST_ID = $env->{'kamado.request_id'} // $Kamado::Log::REQUEST_ID;
    my $request = join ' ', grep defined, @$env{qw(REQUEST_METHOD REQUEST_URI SERVER_PROTOCOL)};
    Kamado::Log->log($level, "$request: $message");
}

# The failures behind the 500s the event loop answered itself (a request
# body it could not write to a temporary file: a full TMPDIR): an error
# line each, with the request line, the client, the path and errno.
sub log_faults {
    my ($self) = @_;
    my @faults = $self->{loop}->take_faults or return;
    my $lost = ref $faults[-1] ? 0 : pop @faults;
    for my $fault (@faults) {
        my ($what, $errno, $addr, $path, $line) = @$fault;
        $line =~ s/([^\x20-\x7e])/sprintf '\\x%02x', ord $1/ge;
        my $why = do { local $! = $errno; "$!" };
        Kamado::Log->error("$line: answered 500 to $addr: $what" . (length $path ? " in $path" : '') . ": $why");
    }
    Kamado::Log->error("$lost more such 500s were not logged (too many at once)") if $lost;
}

1;
__END__

=head1 NAME

Kamado::Server::Errors - a worker's answers to a failed app, and its log lines

=head1 SYNOPSIS

    Kamado::Server::Errors::log_error($env, "app died: $@");
    Kamado::Server::Errors::log_error($env, warn => 'past --max-rss');
    Kamado::Server::Errors::server_error($server, $fd);     # 500
    Kamado::Server::Errors::timeout_error($server, $fd);    # 504
    Kamado::Server::Errors::invalid_response($server, $fd, $env, $why);
    Kamado::Server::Errors::framing_error($server, $fd, $env, $sent);
    Kamado::Server::Errors::log_faults($server);    # the event loop's own 500s

=head1 DESCRIPTION

Functions used by L<Kamado::Server> and its parts; those that answer
take the server (for its event loop) and the connection. The client
gets a generic C<500 Internal Server Error> or C<504 Gateway Timeout>;
C<log_error> writes the reason to the error log, at C<error> or the
level given, after the request line (method, URI, protocol), with the
env's own request id (in an async worker, a stream may end while another
request is being served).
C<framing_error> handles what the event loop's C<write_response> says
when it refused a head (a 500 instead) or sent a body that did not match
its Content-Length (logged). C<log_faults> logs why the event loop
answered a request with a 500 itself (the system call that failed, its
error, the path): the worker calls it when C<next_request> says there is
something to take, and when idle.

=cut
