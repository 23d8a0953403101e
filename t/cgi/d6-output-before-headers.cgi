#!/usr/bin/perl
# D6e: stray debug output before the headers. Plain CGI: "debug: started"
# is read as a header line without ':' -> 500 (malformed header).
print "debug started\n";
print "Content-type: text/plain\n\n";
print "body\n";
