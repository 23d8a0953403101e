package Kamado::Writer;
use 5.024;
use strict;
use warnings;

# The writer object of a PSGI streaming response: write() sends a piece of
# the body (chunked when the client speaks HTTP/1.1 and no Content-Length
# was given), close() ends the body and the request. In a process the app
# forked, both do nothing: the connection is the worker's.

use Kamado ();

# $end: ends the body (the server's, which also logs a body that did not
# match its Content-Length)
sub new {
    my ($class, $loop, $fd, $alive, $end) = @_;
    return bless { loop => $loop, fd => $fd, alive => $alive, end => $end, closed => 0,
        pid => Kamado::current_pid() }, $class;
}

# The writer after a 101: the connection is the app's (psgix.io), and
# the writer does nothing.
sub released {
    my ($class, $loop, $fd) = @_;
    my $self = $class->new($loop, $fd, 0);
    $self->{closed} = 1;
    return $self;
}

sub write {
    my ($self, $data) = @_;
    return if $self->{closed} || !$self->{alive} || !defined $data || Kamado::current_pid() != $self->{pid};
    # a client that went away makes further writes no-ops, not errors;
    # characters instead of bytes are the app's error
    my $ok = $self->{loop}->write_body($self->{fd}, $data);
    die "Wide character in a PSGI response body\n" if defined $ok && !$ok;
    $self->{alive} = $ok;
    return;
}

# Whether the client is still there: false once a write failed (it went
# away; writes are no-ops from then on). For an app that would go on
# producing for nobody.
sub alive {
    my ($self) = @_;
    return $self->{alive} ? 1 : 0;
}

sub close {
    my ($self) = @_;
    return if Kamado::current_pid() != $self->{pid} || $self->{closed}++;
    if ($self->{alive}) {
        $self->{end} ? $self->{end}->() : $self->{loop}->write_end($self->{fd});
    } else {
        $self->{loop}->close_conn($self->{fd});
    }
    return;
}

# Ends a response the app failed in the middle of: the client must see a
# truncated body, never a complete-looking one.
sub abort {
    my ($self) = @_;
    return if Kamado::current_pid() != $self->{pid} || $self->{closed}++;
    $self->{loop}->close_conn($self->{fd});
    return;
}

1;
__END__

=head1 NAME

Kamado::Writer - the writer of a PSGI streaming response

=head1 METHODS

=over

=item Kamado::Writer->released($loop, $fd)

The writer given after a C<101>: the connection is the app's, and the
writer does nothing.

=item write($data)

=item alive

False once the client has gone away (a write failed): what is written
after that is dropped.

=item close

=item abort

=back

=cut
