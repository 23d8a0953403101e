#!/usr/bin/perl
# E4b: an alarm that fires during the request (takes ~1 s). Plain CGI: the
# handler prints "timed out" and exits; "AFTER-SLEEP" never appears.
$| = 1;
$SIG{ALRM} = sub { print "timed out\n"; exit 0 };
print "Content-type: text/plain\n\n";
print "waiting\n";
alarm 1;
sleep 5;
print "AFTER-SLEEP\n";
