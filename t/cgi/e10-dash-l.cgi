#!/usr/bin/perl -l
# E10b: -l on the #! line sets $\ = "\n" and chomps input. Plain CGI: each
# print gets a newline, so the header line's own "\n" plus $\ makes the
# empty line.
print "Content-type: text/plain\n";
print "line one";
print "line two";
