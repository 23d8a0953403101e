#!/usr/bin/perl
# A1: exit at top level. Plain CGI: the page below, then nothing: the code
# after the exit never runs.
print "Content-type: text/plain\n\n";
print "closed for maintenance\n";
exit;
print "AFTER-EXIT: board printed\n";
