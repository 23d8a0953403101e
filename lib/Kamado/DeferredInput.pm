package Kamado::DeferredInput;
use 5.024;
use strict;
use warnings;

# psgi.input for a request sent with "Expect: 100-continue". The client
# waits for "100 Continue" before it sends the body, and must not be told
# to send it when the app answers without reading it (a 401, a 413 of the
# app's own, a redirect). So the body is read, and the 100 sent, only when
# the app first touches its input: this tied handle then asks the server
# for the real one and hands every call on to it.

use Symbol ();

# Returns a handle (a glob reference, so <$fh> works as well as
# $fh->read) that calls $open->() on first use; $open returns the real
# input handle, or dies when the body could not be read.
sub handle {
    my ($class, $open) = @_;
    my $fh = Symbol::gensym();
    tie *$fh, $class, $open;
    return $fh;
}

sub TIEHANDLE {
    my ($class, $open) = @_;
    return bless { open => $open }, $class;
}

sub _real {
    my ($self) = @_;
    return $self->{real} //= $self->{open}->();
}

sub READ {
    my $self = shift;
    my $real = $self->_real;
    return read($real, $_[0], $_[1], $_[2] // 0);
}

sub READLINE {
    my $self = shift;
    my $real = $self->_real;
    return wantarray ? <$real> : scalar <$real>;
}

sub GETC { getc($_[0]->_real) }
sub EOF  { eof($_[0]->_real) }
sub SEEK { seek($_[0]->_real, $_[1], $_[2]) }
sub TELL { tell($_[0]->_real) }
sub BINMODE { 1 }    # the real handle holds bytes already
sub FILENO { -1 }    # not a file descriptor, as with an in-memory handle

sub CLOSE {
    my ($self) = @_;
    return close $self->{real} if $self->{real};
    return 1;        # never read: the server closes the connection
}

1;
__END__

=head1 NAME

Kamado::DeferredInput - psgi.input that reads the body only when asked

=head1 DESCRIPTION

Used for requests with C<Expect: 100-continue>: the interim C<100 Continue>
is sent, and the body read, when the application first reads its input,
never when it answers without reading. Reading, seeking, C<readline>,
C<getc> and C<eof> work as on any input handle.

=cut
