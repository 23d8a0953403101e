#!/usr/bin/perl
# D6f: no header at all, just a body. Plain CGI: 500 (malformed header).
print "Hello world\n";
print "<p>this was meant to be HTML</p>\n";
