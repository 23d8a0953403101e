#!/usr/bin/perl
# C3b: require "file" without ./ on perl >= 5.26. Plain CGI: dies before
# any header ("Can't locate c3-config.pl in @INC") -> 500.
require "c3-config.pl";
print "Content-type: text/plain\n\ntitle=$title\n";
