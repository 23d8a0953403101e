#!/usr/bin/perl
no warnings;
sub outer { my $x = shift; sub inner { return $x } return inner() }
print "Content-Type: text/plain\n\n", outer($ENV{QUERY_STRING}), "\n";
