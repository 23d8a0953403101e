package Kamado::Test::Systemd;
use 5.024;
use strict;
use warnings;

# Reads the example systemd units: unit(FILE) -> { Section => { Key =>
# [values, in order] } } (a key may repeat, as ListenStream does).

use Exporter 'import';
our @EXPORT_OK = qw(unit);

sub unit {
    my ($file) = @_;
    open my $fh, '<', $file or die "$file: $!";
    my (%unit, $section);
    while (my $line = <$fh>) {
        next if $line =~ /^\s*(?:[#;]|$)/;
        chomp $line;
        if ($line =~ /^\[(\w+)\]$/) { $section = $1; next }
        my ($key, $value) = $line =~ /^(\w+)=(.*)$/ or die "$file: can't read '$line'";
        push $unit{$section}{$key}->@*, $value;
    }
    return \%unit;
}

1;
