# The test app of seed 000 (a team moving to Perl 5.38), written afresh:
# a loop, a temporary file written and read back, the worker's memory use
# (read from /proc rather than by running ps) and the time taken.
use strict;
use warnings;
use File::Temp qw(tempfile);
use Plack::Request;
use Time::HiRes qw(gettimeofday tv_interval);

sub memory_kb {
    open my $fh, '<', "/proc/$$/status" or return 'unknown';
    while (<$fh>) { return $1 if /^VmRSS:\s+(\d+)/ }
    return 'unknown';
}

my $app = sub {
    my $req   = Plack::Request->new(shift);
    my $start = [gettimeofday];

    my $total = 0;
    $total += $_ for 0 .. 9999;

    my ($fh, $filename) = tempfile(UNLINK => 1);
    print $fh 'Some data';
    seek $fh, 0, 0;
    my $content = <$fh>;
    close $fh;
    unlink $filename;

    my $elapsed = tv_interval($start, [gettimeofday]);
    my $body = "Loop total: $total\nFile content: $content\nMemory Usage: "
        . memory_kb() . "KB\nElapsed time: ${elapsed}s\n";
    return [200, ['Content-Type' => 'text/plain'], [$body]];
};
