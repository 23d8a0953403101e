#!/usr/bin/perl
package Footer;
sub new { bless {}, shift }
sub DESTROY { print "footer\n" }

package main;
our $f = Footer->new;
print "Content-Type: text/plain\n\nbody\n";
