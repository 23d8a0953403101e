#!/usr/bin/perl
# A5: fork in a script; the child does background work and exits, the
# parent prints. Plain CGI: "queued", then the parent reports what the
# child did; the child's exit ends only the child, which prints nothing.
$| = 1;
$tmp = $ENV{'KAMADO_TEST_TMP'};
$flag = "$tmp/a5-child-$$.txt";
print "Content-type: text/plain\n\nqueued\n";
$pid = fork;
if (!defined $pid) { print "fork failed\n"; exit }
if ($pid == 0) {
    open(F, ">$flag"); print F "child ran\n"; close(F);
    exit 0;
    print "CHILD-AFTER-EXIT\n";
}
waitpid($pid, 0);
$status = $? >> 8;
open(F, $flag); $line = <F>; close(F); unlink $flag;
print "child status $status: $line";
print "parent done\n";
