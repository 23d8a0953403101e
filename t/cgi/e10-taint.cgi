#!/usr/bin/perl -T
# E10a: taint mode from the #! line. Plain CGI (perl started with -T):
# taint=1 and QUERY_STRING is tainted; untainting works.
use Scalar::Util qw(tainted);
print "Content-type: text/plain\n\n";
print "taint=${^TAINT}\n";
print "query_tainted=", (tainted($ENV{'QUERY_STRING'}) ? 1 : 0), "\n";
($clean) = $ENV{'QUERY_STRING'} =~ /^(\w*)/;
print "clean_tainted=", (tainted($clean) ? 1 : 0), "\n";
