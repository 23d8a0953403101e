#!/usr/bin/perl
use strict;
use warnings;
my $desc = ($ENV{QUERY_STRING} // '') =~ /desc/ ? 1 : 0;
sub by_dir { $desc ? $b <=> $a : $a <=> $b }
print "Content-Type: text/plain\n\n", join(',', sort by_dir 3, 1, 2), "\n";
