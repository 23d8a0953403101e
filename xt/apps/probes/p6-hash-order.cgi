#!/usr/bin/perl
our %h;
$h{"k$_"} = $_ for 1 .. 40;
delete $h{"k$_"} for 1 .. 30;
print "Content-Type: text/plain\n\n", join(',', keys %h), "\n";
