#!/usr/bin/perl
# E1b: use CGI pragmas (-utf8) must survive per-request resets (needs
# libcgi-pm-perl). Plain CGI: the UTF-8 parameter is decoded: one character
# with the UTF-8 flag on.
use CGI qw(:standard -utf8);
$v = param('w');
print header(-type => 'text/plain');
print "length=", length($v), " utf8=", (utf8::is_utf8($v) ? 1 : 0), "\n";
