#!/usr/bin/perl
sub lines { return <DATA> }
my @l = lines();
print "Content-Type: text/plain\n\n", scalar(@l), " lines: @l";
__DATA__
one
two
