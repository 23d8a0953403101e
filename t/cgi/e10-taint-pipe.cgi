#!/usr/bin/perl -T
# E10b: taint mode, a form mailer's way: the script untaints PATH itself
# and pipes its (tainted) form data to a program. Plain CGI: works.
$ENV{PATH} =~ /(.*)/ and $ENV{PATH} = $1;
$| = 1;
print "Content-type: text/plain\n\n";
open(MAIL, "| tr a-z A-Z") or die "can't pipe: $!";
print MAIL "to the pipe: $ENV{QUERY_STRING}\n";
close MAIL;
print "after\n";
