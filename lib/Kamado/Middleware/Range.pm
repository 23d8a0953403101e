package Kamado::Middleware::Range;
use 5.024;
use strict;
use warnings;

use parent 'Plack::Middleware';
use Plack::Util;
use Kamado::ErrorResponse qw(error_response);

# Byte ranges (RFC 9110 14) of a 200 answer to GET whose body is a file
# handle of known length (Plack::App::File's): one range is a 206 with
# Content-Range and that part of the file; a range past the end is a 416
# with "bytes */LENGTH"; several ranges, or an If-Range that names
# another version, get the whole file (the RFC allows it). Every such
# 200, and its HEAD, says Accept-Ranges: bytes.

use constant CHUNK => 65536;

sub call {
    my ($self, $env) = @_;
    my $res = $self->app->($env);
    my $method = $env->{REQUEST_METHOD};
    return $res unless ref $res eq 'ARRAY' && $res->[0] == 200 && ($method eq 'GET' || $method eq 'HEAD')
        && ref $res->[2] && ref $res->[2] ne 'ARRAY';
    my $h = Plack::Util::headers($res->[1]);
    my $length = $h->get('Content-Length') // return $res;
    $h->set('Accept-Ranges' => 'bytes');
    return $res if $method eq 'HEAD';
    my $range = $env->{HTTP_RANGE} // return $res;
    if (defined(my $if = $env->{HTTP_IF_RANGE})) {
        # (a weak ETag never matches here)
        return $res unless grep { defined && $_ eq $if && !/\AW\// } $h->get('ETag'), $h->get('Last-Modified');
    }
    my ($first, $last) = _range($range, $length) or return $res;
    if ($first eq 'none') {
        close $res->[2] if ref $res->[2] eq 'GLOB';
        my $res416 = error_response(416);
        push $res416->[1]->@*, 'Content-Range' => "bytes */$length";
        return $res416;
    }
    my $fh = $res->[2];
    seek $fh, $first, 0 or return $res;
    $h->set('Content-Range' => "bytes $first-$last/$length");
    $h->set('Content-Length' => $last - $first + 1);
    $res->[0] = 206;
    $res->[2] = Kamado::Middleware::Range::Body->new($fh, $last - $first + 1);
    return $res;
}

# (first, last) of the one range in a Range header, ('none') when it
# cannot be satisfied, () when it is not one byte range (then ignored).
sub _range {
    my ($header, $length) = @_;
    my ($spec) = $header =~ /\A\s*bytes\s*=\s*([^,]*?)\s*\z/i or return ();
    my ($from, $to) = $spec =~ /\A(\d*)\s*-\s*(\d*)\z/ or return ();
    return () if !length $from && !length $to;
    if (!length $from) {
        # the last N bytes
        return ('none') if $to == 0 || $length == 0;
        return ($to >= $length ? 0 : $length - $to, $length - 1);
    }
    return () if length $to && $to < $from;
    return ('none') if $from >= $length;
    return ($from, !length $to || $to >= $length ? $length - 1 : $to);
}

package Kamado::Middleware::Range::Body;

# A file handle's next LEFT bytes, as a PSGI body.
sub new { my ($class, $fh, $left) = @_; bless { fh => $fh, left => $left }, $class }

sub getline {
    my ($self) = @_;
    return undef if $self->{left} <= 0;
    my $n = read $self->{fh}, my $buf,
        $self->{left} < Kamado::Middleware::Range::CHUNK ? $self->{left} : Kamado::Middleware::Range::CHUNK;
    return undef unless $n;
    $self->{left} -= $n;
    return $buf;
}

sub close { close $_[0]{fh} }

# (FH, OFFSET, LENGTH) when the handle is a real file: the server sends
# that part of it with sendfile(2), from its event loop for a slow client;
# () when it is not.
sub file_range {
    my ($self) = @_;
    my $fh = $self->{fh};
    return () unless Plack::Util::is_real_fh($fh) && -f $fh;
    return ($fh, tell $fh, $self->{left});
}

1;
__END__

=head1 NAME

Kamado::Middleware::Range - byte ranges (206, 416) of a file a PSGI app sends

=head1 SYNOPSIS

    use Plack::Builder;
    builder { enable '+Kamado::Middleware::Range'; Plack::App::File->new(root => 'htdocs')->to_app };

=head1 DESCRIPTION

For a 200 answer to GET whose body is a file handle with a
C<Content-Length>: C<Accept-Ranges: bytes>; a C<Range> of one byte range
(C<bytes=A-B>, C<bytes=A->, C<bytes=-N>) gives a 206 with
C<Content-Range> and those bytes; a range that starts past the end gives
416 with C<Content-Range: bytes */LENGTH>. Several ranges, a malformed
one, and an C<If-Range> that is not the answer's strong C<ETag> or its
C<Last-Modified> get the whole file.

=cut
