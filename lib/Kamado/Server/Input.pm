package Kamado::Server::Input;
use 5.024;
use strict;
use warnings;

use Errno ();
use Kamado ();
use PerlIO::scalar ();    # (the empty handle's layer, loaded before fork: shared by the workers)
use Stream::Buffered;

# A request's psgi.input, as functions over the Kamado::Server that
# serves it: the body read whole before the app runs, or when the app
# first reads it (an Expect request under --expect-to-app), or an empty
# handle for a request without one. A body that cannot be read is
# answered here (408, 413, 400) or its connection closed.

# The keys of the worker's hash this module owns (see Kamado::Server).
use constant FIELDS => qw(empty_input body_failed);

# A request with a body begins: none of it has failed yet.
sub start {
    my ($self) = @_;
    $self->{body_failed} = undef;
}

# One read-only handle on an empty string serves every request without a
# body; a new one is made only if an app closed it. The first is made by
# prepare_empty in the generation before it forks: a worker that opens
# its own writes to many pages it shares with the generation.
my $EMPTY;

sub empty {
    my ($self) = @_;
    my $fh = $self->{empty_input} // $EMPTY;
    return $fh if $fh && defined fileno $fh;    # -1 while open (in memory)
    return $self->{empty_input} = _open_empty();
}

sub prepare_empty { $EMPTY //= _open_empty() }

sub _open_empty {
    open my $fh, '<', \(my $empty = '');
    return $fh;
}

# HTTP/1.1 "Expect: 100-continue" (the parser has refused any other
# expectation, and ignores it in HTTP/1.0, which has no 1xx answers), left
# to the app with --expect-to-app.
sub expects_continue {
    my ($env) = @_;
    return exists $env->{HTTP_EXPECT} && $env->{SERVER_PROTOCOL} eq 'HTTP/1.1';
}

# The body of an Expect request, read when the app first reads its input;
# reading it sends the 100 Continue. Dies if it cannot be read: the error
# answer is sent already, and whatever the app returns is dropped.
sub deferred_body {
    my ($self, $fd, $env, $kind, $request) = @_;
    die "Kamado: the request body can be read only while the request is served\n"
        if $self->{body_failed} || $self->{loop}->serving($fd) != $request;
    read_body($self, $fd, $env, $kind)
        or die "Kamado: the request body could not be read ($self->{body_failed})\n";
    return $env->{'psgi.input'};
}

# Reads the whole body before the app runs (psgix.input.buffered): in
# memory below the spool threshold, in a temporary file above it.
sub read_body {
    my ($self, $fd, $env, $kind) = @_;
    my $loop = $self->{loop};
    if ($kind == Kamado::BODY_FILE) {
        # the event loop has spooled it already (lib/Kamado.pm): a handle
        # of our own on its temporary file, or the bytes in memory when
        # they are few enough (--spool-threshold)
        open my $input, '<&', $loop->body_file($fd) or return _body_failed($self, $fd, $env);
        binmode $input;
        sysseek $input, 0, 0;
        my $size = -s $input;
        if ($size <= $self->{spool_threshold}) {
            my $buf = '';
            1 while length $buf < $size && sysread $input, $buf, $size - length $buf, length $buf;
            return _body_failed($self, $fd, $env) if length $buf != $size;
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
            return _body_failed($self, $fd, $env) if !defined $chunk || $chunk eq '';
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
        return _body_failed($self, $fd, $env) if !defined $chunk;
        last if $chunk eq '';
        $spool->print($chunk);
        $read += length $chunk;
    }
    return _body_failed($self, $fd, $env) if defined $length && $read != $length;
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

1;
__END__

=head1 NAME

Kamado::Server::Input - a request's body, as the app's psgi.input

=head1 SYNOPSIS

    $env->{'psgi.input'} = Kamado::Server::Input::empty($server);    # no body
    Kamado::Server::Input::read_body($server, $fd, $env, $kind) or return;

=head1 DESCRIPTION

Functions over a L<Kamado::Server>, for the request on connection C<$fd>.
C<read_body> reads the whole body before the app runs: a body the event
loop has spooled already (C<BODY_FILE>) becomes a handle on its file, or
a string below C<spool_threshold>; a body of known length below it is
read into memory, a longer or chunked one into a L<Stream::Buffered>. A
chunked body is decoded, and the app sees its C<CONTENT_LENGTH>. When the
body cannot be read it answers 408 (too slow), 413 (over
B<--max-request-body>) or 400 (a malformed chunk), or closes a connection
the client left, records why in the server's C<body_failed>, and returns
false.

C<deferred_body> is what the app's first read of an
C<Expect: 100-continue> request's input calls under B<--expect-to-app>
(C<expects_continue> says which requests those are; see
L<Kamado::DeferredInput>). C<empty> is the handle of a request without a
body.

=cut
