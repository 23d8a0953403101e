package Kamado::Test::AccessLog;
use 5.024;
use strict;
use warnings;

# Reading --access-log files in tests: the lines so far, waiting for a
# count of them (the workers write when idle, within about a second), and
# the combined format parsed field by field.

use Exporter 'import';
use Kamado::Test qw(eventually);

our @EXPORT_OK = qw(log_lines wait_lines parse_combined COMBINED);

# %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i", strictly
use constant COMBINED => qr{\A(\S+) (\S+) (\S+) \[(\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [-+]\d{4})\] "((?:[^"\\]|\\.)*)" (\d{3}) (\d+|-) "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"\z};

sub log_lines {
    my ($file) = @_;
    open my $fh, '<', $file or return ();
    my @lines = <$fh>;
    return @lines;
}

# The lines once there are at least $n of them (or what is there after
# $timeout seconds, default 10).
sub wait_lines {
    my ($file, $n, $timeout) = @_;
    eventually(sub { log_lines($file) >= $n }, $timeout // 10);
    return log_lines($file);
}

# A combined line as {host, ident, user, time, request, status, bytes,
# referer, agent}, or undef when it is not one (the newline included).
sub parse_combined {
    my ($line) = @_;
    $line =~ s/\n\z// or return undef;
    my @f = $line =~ COMBINED or return undef;
    my %h;
    @h{qw(host ident user time request status bytes referer agent)} = @f;
    return \%h;
}

1;
