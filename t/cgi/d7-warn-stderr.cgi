#!/usr/bin/perl -w
# D7: warn and STDERR. Plain CGI: the response is unaffected; stderr has
# the messages (the error log).
print "Content-type: text/plain\n\n";
warn "d7 warning\n";
print STDERR "d7 stderr line\n";
my $undef;
my $x = "value: " . $undef;
print "ok\n";
