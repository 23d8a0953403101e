#!/usr/bin/perl
# D3f: open(PIPE, "|program"): the program inherits fd 1. Plain CGI: its
# output (sorted lines) is part of the response.
$| = 1;
print "Content-type: text/plain\n\n";
open(SORT, "|sort") or die "no sort: $!";
print SORT "pear\napple\nfig\n";
close(SORT);
print "end\n";
