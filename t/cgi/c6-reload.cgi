#!/usr/bin/perl
# C6: reload on change. Prints the version of itself and of its private
# library; a reload test copies this script and ./c6-lib.pl to a temp dir
# and edits the copies. Plain CGI: always the files' current contents.
require './c6-lib.pl';
$SCRIPT_VERSION = 1;
print "Content-type: text/plain\n\n";
print "script=$SCRIPT_VERSION lib=$LIB_VERSION\n";
