#!/usr/bin/perl
use strict;
use warnings;
my ($who) = ($ENV{QUERY_STRING} // '') =~ /who=(\w+)/;
$who //= 'nobody';
our $AUTOLOAD;
sub AUTOLOAD { my $n = $AUTOLOAD; return if $n =~ /DESTROY/; no strict 'refs'; *$n = sub { "hello $who" }; goto &$n }
print "Content-Type: text/plain\n\n", greet(), "\n";
