package Kamado::Server::Response;
use 5.024;
use strict;
use warnings;

use Kamado ();
use Kamado::Server::Errors;
use Kamado::Server::Limits;
use Kamado::Writer;
use Plack::Util;
use Scalar::Util ();

# Sending what the app returned, as functions over the Kamado::Server
# that serves the request: the responses its handle_request does not send
# in one call to the event loop (bodies that are handles or objects,
# delayed and streamed responses), and whatever of them is invalid.

# The keys of the worker's hash this module owns (see Kamado::Server).
use constant FIELDS => ();

# bytes read from a pipe body at a time
use constant READ_SIZE => 65536;

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
    if (Scalar::Util::blessed($body) && $body->can('file_range') && (my @range = $body->file_range)) {
        return _respond_file($self, $fd, $env, $status, $headers, @range);
    }
    return _respond_stream($self, $fd, $env, $status, $headers, $body);
}

# A body that is a handle on a pipe or a socket, or an object with
# getline: what it has produced goes out at once, framed (chunked when
# there is no length), and what the client does not take at once is the
# event loop's to send (write_body), so the worker never waits on the
# client, only on the body. A pipe that has all of its bytes at once (up
# to --write-buffer) goes out whole, with its length.
sub _respond_stream {
    my ($self, $fd, $env, $status, $headers, $body) = @_;
    my $loop = $self->{loop};
    my $pipe = _is_descriptor($body);
    # (the first piece is taken before the head: a body that dies at
    # once gets a 500, an empty one a Content-Length: 0)
    my ($ended, @start);
    my $got = eval {
        if ($pipe) {
            ($ended, @start) = _available($body, $self->{write_buffer}, 1);
        } else {
            my $first = $body->getline;
            defined $first ? push(@start, $first) : ($ended = 1);
        }
        1;
    };
    if (!$got) {
        Kamado::Server::Errors::log_error($env, "body died: $@");
        $body->close if $pipe || $body->can('close');
        return Kamado::Server::Errors::server_error($self, $fd);
    }
    if ($ended) {
        $body->close if $pipe || $body->can('close');
        my $ok = $loop->write_response($fd, $status, $headers, \@start);
        Kamado::Server::Errors::framing_error($self, $fd, $env, $ok)
            if defined $ok && (!$ok || $ok == Kamado::Loop::BODY_MISMATCH);
        return;
    }
    my $ok = $loop->write_head($fd, $status, $headers);
    if (!$ok) {
        Kamado::Server::Errors::invalid_response($self, $fd, $env, $loop->framing_error) if defined $ok;
        $loop->close_conn($fd) if !defined $ok;
        $body->close if $pipe || $body->can('close');
        return;
    }
    my $sent = eval {
        my $more = 1;
        while (1) {
            for my $chunk (@start) {
                my $ok = $loop->write_body($fd, $chunk);
                die "Wide character in a PSGI response body\n" if defined $ok && !$ok;
                return 1 if !$ok;    # the client went away
            }
            last unless $more;
            if ($pipe) {
                # (the last bytes may come with the end: sent before the loop stops)
                ($more, @start) = _available($body, $self->{write_buffer}, 1);
                $more = !$more;
            } else {
                my $chunk = $body->getline;
                ($more, @start) = defined $chunk ? (1, $chunk) : (0);
            }
        }
        1;
    };
    Kamado::Server::Errors::log_error($env, "body died: $@") if !$sent;
    $body->close if $pipe || $body->can('close');
    $sent ? _end($self, $fd, $env) : $loop->close_conn($fd);
}

# A handle on a descriptor of its own (a pipe, a socket; not tied, not in
# memory): read with sysread, so what it has is taken without waiting.
sub _is_descriptor {
    my ($fh) = @_;
    return 0 unless (Scalar::Util::reftype($fh) // '') eq 'GLOB' && !tied *$fh;
    my $n = fileno $fh;
    return defined $n && $n >= 0;
}

# What a pipe or socket has now: (ENDED, PIECES), up to about LIMIT bytes
# without waiting; with WAIT, waits for the first bytes (or the end).
sub _available {
    my ($fh, $limit, $wait) = @_;
    $limit = READ_SIZE if $limit < READ_SIZE;
    my ($size, @got) = (0);
    $fh->blocking(0);
    while ($size < $limit) {
        my $n = sysread $fh, my $buf, READ_SIZE;
        if ($n) {
            push @got, $buf;
            $size += $n;
        } elsif (defined $n) {
            return (1, @got);
        } elsif ($!{EAGAIN} || $!{EWOULDBLOCK}) {
            last if @got || !$wait;
            vec(my $in = '', fileno $fh, 1) = 1;
            select $in, undef, undef, undef;
        } elsif (!$!{EINTR}) {
            die "Can't read the response body: $!\n";
        }
    }
    return (0, @got);
}

# Ends a streamed body, and logs a body that did not match its
# Content-Length (cut, or short: either way the connection was closed).
sub _end {
    my ($self, $fd, $env) = @_;
    my $ended = $self->{loop}->write_end($fd);
    Kamado::Server::Errors::log_error($env, $self->{loop}->framing_error)
        if $ended && $ended == Kamado::Loop::BODY_MISMATCH;
}

# An array of strings, a filehandle, or an object with getline.
sub _is_body {
    my ($body) = @_;
    return 1 if ref $body eq 'ARRAY' || ref $body eq 'GLOB';
    return Scalar::Util::blessed($body) && $body->can('getline');
}

# A body that is a real file goes out with sendfile(2), from its current
# position to its end (or LENGTH bytes from OFFSET: a body's file_range);
# what a slow client does not take at once, the event loop sends, from a
# descriptor of its own, while the worker goes on.
sub _respond_file {
    my ($self, $fd, $env, $status, $headers, $fh, $offset, $length) = @_;
    $offset //= sysseek($fh, 0, 1) || 0;
    $length //= (-s $fh) - $offset;
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
in one call to the event loop; a real file with sendfile(2), and so the
part of one that a body's C<file_range> names (L<Kamado::Middleware::Range>);
a handle on a pipe or socket, or an object with C<getline>, as it
produces: what a pipe has at once (C<sysread>), or each C<getline>, goes
out framed at once (chunked without a length; a pipe whose whole output
is there at once goes out with its length). What a slow client does not
take, the event loop holds and sends (see C<write_body> in
L<Kamado::Loop>): the worker waits on the body, never on the client.

C<respond_delayed> runs a delayed response: the responder takes a
complete response or C<[status, headers]>, then returns a
L<Kamado::Writer>; the body is ended when the app returns. An app that
dies before it answers gets a 500 (a 504 when B<--request-timeout>
stopped it); one that dies while streaming has its connection closed, so
the client sees a cut body.

=cut
