#!/usr/bin/perl
# C2: relative paths at compile time: use lib './c2-lib' and a BEGIN-time
# push @INC + require. Plain CGI: compile happens in the script's directory,
# so both work.
use lib './c2-lib';
use C2Mod;
BEGIN { push @INC, "./c2-lib"; require "c2-paths.pl"; }
print "Content-type: text/plain\n\n";
print "module=", C2Mod::hello(), "\n";
print "paths=$boarddir\n";
