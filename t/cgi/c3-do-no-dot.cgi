#!/usr/bin/perl
# C3a: do "file" without ./ on perl >= 5.26. Plain CGI: '.' is not in @INC,
# so do() returns undef (a warning on stderr) and the script runs with an
# empty config: title=undef.
$rv = do "c3-config.pl";
print "Content-type: text/plain\n\n";
print "do=", (defined $rv ? $rv : 'undef'), "\n";
print "title=", (defined $title ? $title : 'undef'), "\n";
$rv2 = do "./c3-config.pl";
print "with ./: title=$title\n";
