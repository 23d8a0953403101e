#!/usr/bin/perl
my @in;
for (qw(a b START c d)) { push @in, $_ if /START/ .. /END/; }
print "Content-Type: text/plain\n\n", "in range: @in\n";
