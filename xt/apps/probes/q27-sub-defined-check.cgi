#!/usr/bin/perl
our $loaded;
my $n = 0;
unless (defined &helper) { eval 'sub helper { return "helper v1" }'; $n++ }
print "Content-Type: text/plain\n\n", helper(), " defined-now=$n\n";
