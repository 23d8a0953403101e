#!/usr/bin/perl
# D6a: Status: header. Plain CGI: 404 with the script's body.
print "Status: 404 Not Found\n";
print "Content-type: text/plain\n\n";
print "no such article\n";
