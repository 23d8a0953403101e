#!/usr/bin/perl
use strict;
use warnings;
BEGIN { my $n = 0; sub next_id { return ++$n } }
print "Content-Type: text/plain\n\n", "id ", next_id(), "\n";
