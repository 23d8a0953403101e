#!/usr/bin/perl
# B7: END blocks. Plain CGI: the END block runs at the end of every request
# and its output ends the page; it removes the script's temp file.
$tmp = "$ENV{'KAMADO_TEST_TMP'}/b7-$$.tmp";
open(T, ">$tmp"); print T "x"; close(T);
print "Content-type: text/html\n\n";
print "<p>page</p>\n";
END { unlink $tmp if $tmp; print "<!-- generated; tmp removed=", (-e $tmp ? 0 : 1), " -->\n"; }
