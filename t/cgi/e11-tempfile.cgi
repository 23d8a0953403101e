#!/usr/bin/perl
# E11: File::Temp UNLINK => 1 files are removed at process exit. Plain CGI:
# exactly one e11-*.tmp file exists while the script runs (its own).
use File::Temp qw(tempfile);
($fh, $name) = tempfile('e11-XXXXXX', SUFFIX => '.tmp', DIR => $ENV{'KAMADO_TEST_TMP'}, UNLINK => 1);
print $fh "work\n";
opendir(D, $ENV{'KAMADO_TEST_TMP'}); @t = grep { /^e11-.*\.tmp$/ } readdir(D); closedir(D);
print "Content-type: text/plain\n\n";
print "tempfiles=", scalar(@t), "\n";
