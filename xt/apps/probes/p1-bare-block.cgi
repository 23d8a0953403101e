#!/usr/bin/perl
use strict;
use warnings;
{ my $count = 0; sub bump { return ++$count } }
bump() for 1 .. 2;
print "Content-Type: text/plain\n\n", "count ", bump(), "\n";
