#!/usr/bin/perl
use lib 'lib';
use Cache;
print "Content-Type: text/plain\n\n", Cache::seen($ENV{QUERY_STRING}), "\n";
