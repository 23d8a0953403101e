#!/usr/bin/perl
# A4c: die before any header. Plain CGI: no header at all -> 500
# ("Premature end of script headers"), message in the error log.
$file = "./no-such-config.dat";
open(CONF, $file) || die "cannot open $file: $!\n";
print "Content-type: text/plain\n\nnever\n";
