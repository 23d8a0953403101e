#!/usr/bin/perl -CS
# E10d: -CS on the #! line: UTF-8 STDIN/STDOUT/STDERR. Plain CGI: the
# character is printed as UTF-8 (e2 98 ba), no "Wide character" warning.
print "Content-type: text/plain; charset=UTF-8\n\n";
print "smile=\x{263a}\n";
