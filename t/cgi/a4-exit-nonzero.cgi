#!/usr/bin/perl
# A4b: non-zero exit after a full page. Plain CGI: the page stands (200).
print "Content-type: text/html\n\n<p>Please fill in your name</p>\n";
exit(1);
