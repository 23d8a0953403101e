#!/usr/bin/perl -w
# B11: constants and prototyped subs (redefinition on reload). Plain CGI:
# no warnings at all on stderr; LIMIT=10, helper doubles.
use constant LIMIT => 10;
sub helper($) { return $_[0] * 2 }
my ($n) = ($ENV{'QUERY_STRING'} =~ /n=(\d+)/);
$n = 1 unless defined $n;
print "Content-type: text/plain\n\n";
print "limit=", LIMIT, " helper=", helper($n), "\n";
