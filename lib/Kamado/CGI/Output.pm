package Kamado::CGI::Output;
use 5.024;
use strict;
use warnings;

use Kamado ();    # (the XS: _parse)

# What a CGI script prints, turned into an HTTP response head the way
# Apache's mod_cgi does it (util_script.c): header lines up to the first
# empty line (LF or CRLF endings); "Status:" sets the status; a
# "Location:" with an absolute URL and no Status is a 302, with a local
# path (and no Status) an internal redirect; "Last-Modified:" is read as
# an HTTP date and sent in RFC 1123 form, never later than now, or dropped
# when it is no date (src/proto/kd_date.c); a line that is not a header,
# or output that ends before the empty line, is a 500 and a log line.
# Fed incrementally, so a script's body can stream as it is printed.

use constant MAX_HEAD => 64 * 1024;    # Apache's line limit is 8190; a head this long is broken

# new(nph => 1 for an nph- script's output, which starts with its status
# line: "HTTP/1.1 NNN reason"; Kamado frames the response itself, its own
# Date and connection handling, keeping the script's status and headers)
sub new {
    my ($class, %a) = @_;
    return bless { buf => '', nph => $a{nph} ? 1 : 0 }, $class;
}

# Appends bytes; returns undef while the head is incomplete, else the
# parsed head: { status, headers => [name, value, ...], rest } or
# { error => why } or { redirect => path }.
sub feed {
    my ($self, $bytes) = @_;
    if ($self->{nph}) {
        $self->{status_line} .= $bytes;
        return undef unless $self->{status_line} =~ /\n/;
        $self->{nph} = 0;
        ($bytes = delete $self->{status_line}) =~ s{\AHTTP/\d\.\d (\d{3})[^\n]*\n}{Status: $1\n};
    }
    $self->{buf} .= $bytes;
    # (the search for the empty line and the parse: _parse, in XS)
    if (my $head = _parse($self->{buf})) {
        $self->{buf} = '';
        return $head;
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

# parse(OUTPUT) -> the head of a script's whole output (not an nph-
# script's), as feed returns it, or undef when it is not complete (then
# feed and finish say why): one call for the in-process modes, which have
# the whole output at once. _parse is in XS (xs/CGIOutput.xsh, the head
# parsed by src/proto/kd_cgi_head.c); parse is that sub, not a call more.
{ no warnings 'once'; *parse = \&_parse }

1;
__END__

=head1 NAME

Kamado::CGI::Output - parses a CGI script's header block as Apache does

=cut
