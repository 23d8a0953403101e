#!/usr/bin/perl -w
# D8c: CRLF line endings everywhere, with __DATA__. Plain CGI: perl reads
# CRLF source fine; DATA lines keep their \r (printed as length).
print "Content-type: text/plain\n\n";
$n = 0;
while (<DATA>) { $n++; $len .= length($_) . ","; }
print "crlf ok, data lines=$n lengths=$len\n";
__DATA__
line one
line two
