#!/usr/bin/perl -T
# E10b: taint mode: PATH set by the script (perlsec's way, the other
# variables a shell reads deleted), then system. Plain CGI: works.
$ENV{PATH} = '/usr/bin:/bin';
delete @ENV{qw(IFS CDPATH ENV BASH_ENV)};
$| = 1;
print "Content-type: text/plain\n\n";
system('echo', 'from system') == 0 or print "system failed: $?\n";
print "after\n";
