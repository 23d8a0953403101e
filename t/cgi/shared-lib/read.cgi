#!/usr/bin/perl
# B4: one of several scripts sharing the package-less ./lib.pl. Plain CGI:
# every script gets &decode etc. in main; lib_loaded=1; lock_mode=2.
require './lib.pl';
require './fmt.pl';
&decode;
&header;
print "read.cgi: ", &fmt::bracket($FORM{'no'}, $FORM{'name'}), "\n";
print "lib_loaded=$lib_loaded lock_mode=", &lock_mode, "\n";
