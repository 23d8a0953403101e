# Runs each fuzzer for a bounded time (KAMADO_FUZZ_SECONDS, default 60)
# on a copy of the corpus; new interesting inputs are left in the copy for
# a human to look at. Not part of ./dev/test: run with prove xt/fuzz.t.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use File::Copy qw(copy);

my $clang = `sh -c 'command -v clang' 2>/dev/null`;
chomp $clang;
plan skip_all => 'clang is not installed' unless $clang;
my $seconds = $ENV{KAMADO_FUZZ_SECONDS} || 60;

my $dir = tempdir(CLEANUP => 0);
for my $harness (qw(parser chunked)) {
    my $bin = "$dir/fuzz_$harness";
    system($clang, qw(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all),
        "fuzz/fuzz_$harness.c", '-o', $bin) == 0 or BAIL_OUT("can't build fuzz_$harness");
    mkdir "$dir/$harness";
    copy($_, "$dir/$harness/") for glob "fuzz/corpus/$harness/*";
    my $log = `cd $dir && $bin -max_total_time=$seconds -max_len=8192 $dir/$harness 2>&1`;
    is $?, 0, "fuzz_$harness ran ${seconds}s without a crash" or diag substr($log, -3000);
    note "corpus after the run: $dir/$harness";
}
done_testing;
