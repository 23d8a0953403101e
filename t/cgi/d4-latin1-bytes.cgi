#!/usr/bin/perl
# D4b: raw bytes with no layer. Plain CGI: exactly the bytes 63 61 66 e9
# ("caf\xe9" in Latin-1): a layer left on STDOUT by another script would
# turn them into c3 a9.
print "Content-type: text/plain; charset=ISO-8859-1\n\n";
print "caf\xe9\n";
