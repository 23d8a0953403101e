#!/usr/bin/perl
# B2: package globals. Plain CGI: hits=1 on every request, and
# authenticated=1 only on the request that gave the password.
use vars qw($authenticated);
$QS = $ENV{'QUERY_STRING'};
$authenticated = 1 if $QS =~ /(?:^|&)pass=secret(?:&|$)/;
$hits++;
push @seen, $QS;
print "Content-type: text/plain\n\n";
print "hits=$hits\n";
print "authenticated=", ($authenticated ? 1 : 0), "\n";
print "seen=", scalar(@seen), "\n";
