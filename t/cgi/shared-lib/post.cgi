#!/usr/bin/perl
# B4: POSTs through the shared lib's &ReadParse. Plain CGI: the form fields
# of this request only.
require './lib.pl';
&ReadParse;
&header;
foreach $k (sort keys %in) { print "post.cgi: $k=$in{$k}\n"; }
print "lib_loaded=$lib_loaded lock_mode=", &lock_mode, "\n";
