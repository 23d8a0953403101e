#!/usr/bin/perl
print "Content-Type: text/plain\n\n", "args: [@ARGV]\n";
