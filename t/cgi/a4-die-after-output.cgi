#!/usr/bin/perl
# A4a: die after the page has been printed. Plain CGI: 200 with the partial
# body; the message goes to stderr (the error log).
$| = 1;
print "Content-type: text/html\n\n";
print "<p>Please fill in your name</p>\n";
die "db error\n";
