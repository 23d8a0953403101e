#!/usr/bin/perl
use strict;
my %cache;
sub lookup { my $k = shift; $cache{$k} //= "value for $k"; return scalar keys %cache }
print "Content-Type: text/plain\n\n", lookup($ENV{QUERY_STRING}), "\n";
