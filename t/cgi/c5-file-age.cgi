#!/usr/bin/perl
# C5: -M and $^T. Plain CGI: $^T is this request's start, so a file
# written now has an age of about 0 days ("fresh") and $^T is now.
$f = "$ENV{'KAMADO_TEST_TMP'}/c5-cache-$$.txt";
open(C, ">$f"); print C "cache\n"; close(C);
$age_s = -M $f;
$age_s *= 86400;
unlink $f;
print "Content-type: text/plain\n\n";
print "cache=", (abs($age_s) <= 2 ? "fresh" : "age ${age_s}s"), "\n";
print "T_is_now=", (abs(time - $^T) <= 2 ? 1 : 0), "\n";
