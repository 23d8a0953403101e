#!/usr/bin/perl -T
# E10b: taint mode: PATH untainted by the script, then exec: the program
# replaces the script and writes the rest of the page. Plain CGI: works.
$ENV{PATH} =~ /(.*)/ and $ENV{PATH} = $1;
$| = 1;
print "Content-type: text/plain\n\n";
print "before exec\n";
exec 'echo', 'from exec';
print "exec failed: $!\n";
