package Kamado::Server::Response;
use 5.024;
use strict;
use warnings;

use Kamado ();
use Kamado::BodyReader;
use Kamado::Server::Errors;
use Kamado::Server::Limits;
use Kamado::Writer;
use Plack::Util;
use Scalar::Util ();

# Sending what the app returned, as functions over the Kamado::Server
# that serves the request: the responses its handle_request does not send
# in one call to the event loop (bodies that are handles or objects,
# delayed and streamed responses), and whatever of them is invalid.

# a body object is read ahead up to --write-buffer bytes in memory, and up
# to this many times that in a temporary file
use constant READ_AHEAD_FILES => 8;

# Sends a [status, headers, body] response.
sub respond {
    my ($self, $fd, $env, $res) = @_;
    my $loop = $self->{loop};
    my ($status, $headers, $body) = @$res;
    if (@$res != 3 || ref $headers ne 'ARRAY' || !_is_body($body)) {
        return Kamado::Server::Errors::invalid_response($self, $fd, $env, 'not [status, headers, body]');
    }
    if (ref $body eq 'ARRAY') {
        my $ok = $loop->write_response($fd, $status, $headers, $body);
        Kamado::Server::Errors::framing_error($self, $fd, $env, $ok)
            if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
        return;
    }
    if (Plack::Util::is_real_fh($body) && -f $body) {
        return _respond_file($self, $fd, $env, $status, $headers, $body);
    }
    # read ahead, so the event loop can send it for a slow client; a body
    # larger than that is streamed by the worker from where it got to
    my $ahead = $self->{write_buffer} && eval {
        Kamado::BodyReader->read_ahead($body, $self->{write_buffer}, READ_AHEAD_FILES * $self->{write_buffer});
    };
    if ($self->{write_buffer} && !$ahead) {
        Kamado::Server::Errors::log_error($env, "body died: $@");
        $body->close if $body->can('close');
        return Kamado::Server::Errors::server_error($self, $fd);
    }
    if ($ahead && !$ahead->{more}) {
        $body->close if $body->can('close');
        my $ok = $ahead->{file}
            ? $loop->write_file_response($fd, $status, $headers, fileno $ahead->{file}, 0, $ahead->{length})
            : $loop->write_response($fd, $status, $headers, $ahead->{chunks});
        Kamado::Server::Errors::framing_error($self, $fd, $env, $ok)
            if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
        close $ahead->{file} if $ahead->{file};
        return;
    }
    my $ok = $loop->write_head($fd, $status, $headers);
    if (!$ok) {
        Kamado::Server::Errors::invalid_response($self, $fd, $env, $loop->framing_error) if defined $ok;
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
    Kamado::Server::Errors::log_error($env, "body died: $@") if !$sent;
    $body->close if $body->can('close');
    $sent ? _end($self, $fd, $env) : $loop->close_conn($fd);
}

# Ends a streamed body, and logs a body that did not match its
# Content-Length (cut, or short: either way the connection was closed).
sub _end {
    my ($self, $fd, $env) = @_;
    my $ended = $self->{loop}->write_end($fd);
    Kamado::Server::Errors::log_error($env, $self->{loop}->framing_error)
        if $ended && $ended == Kamado::Loop::BODY_MISMATCH;
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
    Kamado::Server::Errors::framing_error($self, $fd, $env, $ok)
        if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
    close $fh;
}

# PSGI delayed response and streaming writer.
sub respond_delayed {
    my ($self, $fd, $env, $code) = @_;
    my $loop = $self->{loop};
    my ($called, $answered, $writer);    # answered: bytes went to the client
    my $ok = eval {
        $code->(sub {
            my ($res) = @_;
            Kamado::Server::_forked() if Kamado::current_pid() != $self->{pid};
            die "responder called twice\n" if $called++;
            die "response is not an array\n" if ref $res ne 'ARRAY';
            if (@$res == 3) {
                $answered = 1;            # respond answers even an invalid one
                return respond($self, $fd, $env, $res);
            }
            die "response is not [status, headers]\n" if @$res != 2 || ref $res->[1] ne 'ARRAY';
            if ($res->[0] eq '101' && $env->{'psgix.io'}) {
                # the connection is the app's now (psgix.io): a writer that does nothing
                my $up = Kamado::Server::upgrade($self, $fd, $env, $res);
                die $loop->framing_error . "\n" if defined $up && !$up;
                $answered = 1;
                return $writer = Kamado::Writer->released($loop, $fd);
            }
            my $head = $loop->write_head($fd, $res->[0], $res->[1]);
            die $loop->framing_error . "\n" if defined $head && !$head;
            $answered = 1;
            return $writer = Kamado::Writer->new($loop, $fd, $head, sub { _end($self, $fd, $env) });
        });
        1;
    };
    Kamado::Server::_forked() if Kamado::current_pid() != $self->{pid};
    if (!$ok) {
        # (a timeout is logged where it struck)
        Kamado::Server::Errors::log_error($env, "app died: $@") unless $@ eq Kamado::Server::Limits::TIMEOUT_ERROR;
        if ($writer) {
            $writer->abort;
        } elsif (!$answered) {
            # (a streaming app stopped by --request-timeout: as timed_app in
            # Kamado::Server::Limits)
            $@ eq Kamado::Server::Limits::TIMEOUT_ERROR
                ? Kamado::Server::Errors::timeout_error($self, $fd)
                : Kamado::Server::Errors::server_error($self, $fd);
        }
        return;
    }
    if (!$called) {
        Kamado::Server::Errors::log_error($env, 'app never called the responder');
        Kamado::Server::Errors::server_error($self, $fd);
    } elsif ($writer) {
        # a blocking server cannot outlive the app's call: end the body
        $writer->close;
    }
}

1;
__END__

=head1 NAME

Kamado::Server::Response - sends an app's response that is not a plain array

=head1 SYNOPSIS

    Kamado::Server::Response::respond($server, $fd, $env, $res);            # [status, headers, body]
    Kamado::Server::Response::respond_delayed($server, $fd, $env, $code);  # sub { $responder }

=head1 DESCRIPTION

Functions over a L<Kamado::Server>, for the request on connection C<$fd>.
C<respond> checks a C<[status, headers, body]> response (an invalid one
gets a 500, see L<Kamado::Server::Errors>) and sends it: an array body
in one call to the event loop; a real file with sendfile(2); a handle or
an object with C<getline> read ahead (L<Kamado::BodyReader>) up to
B<--write-buffer> bytes in memory or eight times that in a temporary
file, so the event loop can send it to a slow client, and streamed by the
worker past that.

C<respond_delayed> runs a delayed response: the responder takes a
complete response or C<[status, headers]>, then returns a
L<Kamado::Writer>; the body is ended when the app returns. An app that
dies before it answers gets a 500 (a 504 when B<--request-timeout>
stopped it); one that dies while streaming has its connection closed, so
the client sees a cut body.

=cut
