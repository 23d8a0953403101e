#!/usr/bin/perl
# B6: BEGIN blocks and compile-time values. Plain CGI: BEGIN runs once per
# request (begin_runs=1), the constant is this request's start time
# (started=fresh), the BEGIN-time relative open works (cwd = script dir).
# Registry cannot match "started" on later requests (compile-time constant).
use constant STARTED => time;
BEGIN { $begin_runs++; }
BEGIN { open(TPL, "<./b6-template.txt") and $tpl = <TPL>; close(TPL); chomp $tpl; }
print "Content-type: text/plain\n\n";
print "begin_runs=$begin_runs\n";
print "started=", (time - STARTED <= 2 ? "fresh" : "stale"), "\n";
print "template=", ($tpl || 'MISSING'), "\n";
