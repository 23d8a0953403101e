#!/usr/bin/perl
# D1a: read(STDIN, ..., CONTENT_LENGTH), cgi-lib style. Plain CGI: exactly
# this request's body.
read(STDIN, $buffer, $ENV{'CONTENT_LENGTH'});
print "Content-type: text/plain\n\n";
print "length=", length($buffer), "\n";
print "body=$buffer\n";
