#!/usr/bin/perl
# E5b: srand(42) then rand: deterministic on one perl build. Plain CGI: the
# same number every request; the seeding dies with the process (it must
# not make e5-rand.cgi repeat itself).
srand(42);
print "Content-type: text/plain\n\n";
print "n=", int(rand(1000000)), "\n";
