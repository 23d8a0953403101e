package Kamado::BodyReader;
use 5.024;
use strict;
use warnings;

# Reads a PSGI body object (anything with getline: an IO::Handle-like
# object, a handle on a pipe) ahead of its response, so that the response
# can go out whole and the event loop, not the worker, sends what a slow
# client does not take at once: in memory up to one limit, in an unlinked
# temporary file up to another. A body larger than both is left to be
# streamed by the worker, after what was read so far.

# read_ahead($body, $memory, $disk) -> one of
#   { chunks => [...] }                       the whole body, in memory
#   { file => $fh, length => N }              the whole body, in a file
#   { chunks => [...] or file/length, more => 1 }  the start; getline has more
# Dies when getline dies, or gives characters above 0xFF (a PSGI body is
# bytes); nothing has been sent then.
sub read_ahead {
    my ($class, $body, $memory, $disk) = @_;
    my (@chunks, $fh);
    my $size = 0;
    while (defined(my $chunk = $body->getline)) {
        next unless length $chunk;
        utf8::downgrade($chunk, 1) or die "Wide character in a PSGI response body\n";
        $size += length $chunk;
        if ($fh) {
            print {$fh} $chunk or die "Can't write the response to a temporary file: $!\n";
            next if $size <= $disk;
            $fh->flush or die "Can't write the response to a temporary file: $!\n";
            return { file => $fh, length => $size, more => 1 };
        }
        push @chunks, $chunk;
        next if $size <= $memory;
        return { chunks => \@chunks, more => 1 } if $size > $disk || !open($fh, '+>', undef);
        binmode $fh;
        print {$fh} @chunks or die "Can't write the response to a temporary file: $!\n";
        @chunks = ();
    }
    return { chunks => \@chunks } unless $fh;
    $fh->flush or die "Can't write the response to a temporary file: $!\n";
    return { file => $fh, length => $size };
}

1;
__END__

=head1 NAME

Kamado::BodyReader - reads a PSGI body object ahead of its response

=head1 SYNOPSIS

    my $got = Kamado::BodyReader->read_ahead($body, $memory, $disk);

=head1 DESCRIPTION

Used by L<Kamado::Server> for response bodies that are objects with
C<getline> rather than arrays or real files: the body is read to its end
(in memory up to C<$memory> bytes, then in an unlinked temporary file up to
C<$disk>) so that it is sent as a whole, by the event loop when the client
reads slowly. See C<read_ahead> in the source for what it returns.

=cut
