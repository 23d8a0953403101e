package Kamado::Test::Log;
use 5.024;
use strict;
use warnings;

# Kamado's error-log lines (Kamado::Log), parsed:
#   TIMESTAMP [LEVEL] ROLE PID [REQUEST-ID]: MESSAGE

use Exporter 'import';
our @EXPORT_OK = qw(log_lines $LINE $PREFIX);

# the prefix, before the message; $1 time, $2 level, $3 role, $4 pid, $5 id
our $PREFIX = qr{(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d) \[(error|warn|notice|info|debug)\] (supervisor|generation|worker) (\d+)(?: \[([^\]\s]+)\])?: };
our $LINE = qr{^$PREFIX(.*)$}m;

# The Kamado lines of TEXT: [{ time, level, role, pid, id, message }];
# other lines (the app's own) are left out.
sub log_lines {
    my ($text) = @_;
    my @lines;
    while ($text =~ /$LINE/g) {
        push @lines, { time => $1, level => $2, role => $3, pid => $4, id => $5, message => $6 };
    }
    return @lines;
}

1;
