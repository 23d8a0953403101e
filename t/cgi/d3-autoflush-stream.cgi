#!/usr/bin/perl
# D3e/D5: $| = 1 and a progress page. Plain CGI: the same bytes every time;
# the header block and "Rebuilding" reach the client before the dots are
# done (the reference test checks that the first chunk arrives early).
$| = 1;
print "Content-type: text/html\n\n<p>Rebuilding";
for (1 .. 5) { select(undef, undef, undef, 0.1); print "."; }
print " done</p>\n";
