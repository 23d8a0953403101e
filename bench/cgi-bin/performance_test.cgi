#!/usr/bin/perl
# Seed 000's performance_test.cgi, written afresh as a plain CGI script
# (CGI.pm, a loop, a temporary file written and read back), without the
# `ps` backtick: memory comes from /proc.
use strict;
use warnings;
use CGI;
use File::Temp qw(tempfile);
use Time::HiRes qw(gettimeofday tv_interval);

my $q = CGI->new;
my $start = [gettimeofday];
my $total = 0;
$total += $_ for 0 .. 9999;
my ($fh, $filename) = tempfile(UNLINK => 1);
print $fh 'Some data';
seek $fh, 0, 0;
my $content = <$fh>;
close $fh;
unlink $filename;
my $memory = 'unknown';
if (open my $st, '<', "/proc/$$/status") {
    while (<$st>) { $memory = $1, last if /^VmRSS:\s+(\d+)/ }
}
my $elapsed = tv_interval($start, [gettimeofday]);
print $q->header('text/plain');
print "Loop total: $total\nFile content: $content\nMemory Usage: ${memory}KB\nElapsed time: ${elapsed}s\n";
