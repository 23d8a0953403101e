#!/usr/bin/perl
package Greeter;
my $greeting = $ENV{QUERY_STRING};
sub greet { return "hi $greeting" }

package main;
print "Content-Type: text/plain\n\n", Greeter::greet(), "\n";
