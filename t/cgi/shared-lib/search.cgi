#!/usr/bin/perl
# B4: third user of ./lib.pl, with an explicit "package main;" and a
# ReadParse(*input) call. Plain CGI: same as the others.
package main;
require './lib.pl';
&ReadParse(*input);
&header;
print "search.cgi: q=$input{'q'}\n";
print "lib_loaded=$lib_loaded lock_mode=", &lock_mode, "\n";
