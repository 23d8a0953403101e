#!/usr/bin/perl
# B8c: state variables in a named sub. Plain CGI: calls=1 then 2 within one
# request, on every request. Registry cannot match without recompiling.
use feature 'state';
sub next_id { state $calls = 0; return ++$calls; }
print "Content-type: text/plain\n\n";
print "calls=", next_id(), ",", next_id(), "\n";
