#!/usr/bin/perl
# E8: umask, locale and select() changed and not restored. Plain CGI:
# every request starts with umask 022, LC_NUMERIC "C", STDOUT selected and
# unbuffered=0.
use POSIX qw(setlocale LC_ALL LC_NUMERIC);
printf "Content-type: text/plain\n\n";
printf "umask=%03o\n", umask;
print "numeric=", setlocale(LC_NUMERIC), "\n";
print "autoflush=$|\n";
print "selected=", (select() eq 'main::STDOUT' ? 'STDOUT' : select()), "\n";
umask(0);
setlocale(LC_ALL, 'C.UTF-8');
$| = 1;
select(STDERR);
