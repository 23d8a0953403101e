#!/usr/bin/perl
# E4a: alarm set, never cancelled; $SIG{ALRM} and $SIG{CHLD} set. Plain CGI:
# the process exits long before the alarm; the response is complete.
$SIG{ALRM} = sub { print "TIMEOUT\n"; exit 1 };
$SIG{CHLD} = 'IGNORE';
alarm 2;
print "Content-type: text/plain\n\n";
print "alarm set, pending=", (alarm(2) > 0 ? 1 : 0), "\n";
