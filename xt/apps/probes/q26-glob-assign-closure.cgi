#!/usr/bin/perl
use strict;
use warnings;
my ($who) = ($ENV{QUERY_STRING} // '') =~ /who=(\w+)/;
$who //= 'nobody';
no strict 'refs';
*{"greet"} = sub { "hello $who" }
    unless defined &greet;
print "Content-Type: text/plain\n\n", greet(), "\n";
