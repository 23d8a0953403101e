#!/usr/bin/perl -T
# E10b: taint mode, a wiki's way: PATH untainted by the script, a
# program's output read through backticks. Plain CGI: works.
$ENV{PATH} =~ /(.*)/ and $ENV{PATH} = $1;
print "Content-type: text/plain\n\n";
my ($n) = $ENV{QUERY_STRING} =~ /^n=(\d+)$/;
my $out = `printf 'line %s\n' 1 2 $n`;
print "backticks: $out";
