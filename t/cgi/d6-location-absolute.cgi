#!/usr/bin/perl
# D6b: Location: with an absolute URL and no Status. Plain CGI: 302 to that
# URL; Apache discards the script's body and sends its own.
print "Location: http://www.example.com/thanks.html\n\n";
print "script body that Apache discards\n";
