#!/usr/bin/perl
# E9: a global cache appended to per request. Plain CGI: cache=1 always.
push @CACHE, 'x' x 10000;
$SEEN{$ENV{'QUERY_STRING'}}++;
print "Content-type: text/plain\n\n";
print "cache=", scalar(@CACHE), " seen=", scalar(keys %SEEN), "\n";
