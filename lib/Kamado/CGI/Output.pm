package Kamado::CGI::Output;
use 5.024;
use strict;
use warnings;

# What a CGI script prints, turned into an HTTP response head the way
# Apache's mod_cgi does it (util_script.c): header lines up to the first
# empty line (LF or CRLF endings); "Status:" sets the status; a
# "Location:" with an absolute URL and no Status is a 302, with a local
# path (and no Status) an internal redirect; a line that is not a header,
# or output that ends before the empty line, is a 500 and a log line.
# Fed incrementally, so a script's body can stream as it is printed.

use constant MAX_HEAD => 64 * 1024;    # Apache's line limit is 8190; a head this long is broken

sub new { bless { buf => '' }, shift }

# Appends bytes; returns undef while the head is incomplete, else the
# parsed head: { status, headers => [name, value, ...], rest } or
# { error => why } or { redirect => path }.
sub feed {
    my ($self, $bytes) = @_;
    $self->{buf} .= $bytes;
    # the empty line ends the head; LF or CRLF, as scripts print either
    # (an empty head first: the search below would run past its line)
    if ($self->{buf} =~ /\A()\r?\n/ || $self->{buf} =~ /\A(.*?)\r?\n\r?\n/s) {
        my $head = $1;
        my $rest = substr $self->{buf}, $+[0];
        $self->{buf} = '';
        return _parse($head, $rest);
    }
    return { error => 'header too long' } if length $self->{buf} > MAX_HEAD;
    return undef;
}

# The script's output ended: a head still incomplete is an error.
sub finish {
    my ($self) = @_;
    return { error => length $self->{buf} ? 'end of script output before the end of the headers'
                                           : 'end of script output before headers' };
}

sub _parse {
    my ($head, $rest) = @_;
    my (@headers, $status, $location, $type);
    for my $line (split /\r?\n/, $head) {
        if ($line =~ /^[ \t]/ && @headers) {
            # a folded line continues the previous header (RFC 822)
            $headers[-1] .= ' ' . ($line =~ s/^[ \t]+//r);
            next;
        }
        my ($name, $value) = $line =~ /^([^:\s]+):[ \t]*(.*?)[ \t]*$/
            or return { error => "malformed header from script. Bad header: " . _shorten($line) };
        if (lc $name eq 'status') {
            ($status) = $value =~ /^(\d{3})\b/
                or return { error => "malformed header from script. Bad Status: " . _shorten($value) };
            next;
        }
        $location = $value if lc $name eq 'location';
        $type = $value if lc $name eq 'content-type';
        push @headers, $name, $value;
    }
    if (defined $location && !defined $status) {
        # a local path: Apache serves it instead, as a new GET
        return { redirect => $location } if $location =~ m{^/};
        $status = 302;
    }
    return { status => $status // 200, headers => \@headers, rest => $rest };
}

sub _shorten { my $s = shift; length $s > 80 ? substr($s, 0, 80) . '...' : $s }

1;
__END__

=head1 NAME

Kamado::CGI::Output - parses a CGI script's header block as Apache does

=cut
