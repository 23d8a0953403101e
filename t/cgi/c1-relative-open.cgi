#!/usr/bin/perl
# C1: relative paths at run time; the script chdirs away and never back.
# Plain CGI: cwd is the script's directory on every request, so
# ./c1-data.txt is always readable; the chdir dies with the process.
open(DATA_FH, "<./c1-data.txt") or $err = "$!";
$line = $err ? "cannot open: $err" : <DATA_FH>;
close(DATA_FH);
chomp $line;
print "Content-type: text/plain\n\n";
print "data=$line\n";
print "init=", (-e './c1-relative-open.cgi' ? 'script dir' : 'elsewhere'), "\n";
chdir('..');
print "after chdir: ", (-e './c1-relative-open.cgi' ? 'script dir' : 'elsewhere'), "\n";
