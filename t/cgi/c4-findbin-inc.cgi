#!/usr/bin/perl
# C4: FindBin, @INC growth, $0 and __FILE__. Plain CGI: $Bin is the script's
# directory, @INC has the added directory once, $0 and __FILE__ are the
# script path.
use FindBin qw($Bin);
use File::Basename;
unshift @INC, "$Bin/c4-lib";
$added = grep { $_ eq "$Bin/c4-lib" } @INC;
print "Content-type: text/plain\n\n";
print "bin_is_script_dir=", ($Bin eq dirname($ENV{'SCRIPT_FILENAME'}) ? 1 : 0), "\n";
print "inc_added=$added\n";
print "0=", basename($0), " file=", basename(__FILE__), "\n";
print "0_absolute=", ($0 eq $ENV{'SCRIPT_FILENAME'} ? 1 : 0), "\n";
