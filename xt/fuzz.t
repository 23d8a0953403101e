# Runs each fuzzer for a bounded time (KAMADO_FUZZ_SECONDS, default 60)
# on a copy of the corpus; new interesting inputs are left in the copy for
# a human to look at. Not part of ./dev/test: run with prove xt/fuzz.t.
#
# libFuzzer always (needs clang with its runtime, Debian libclang-rt-*-dev);
# then AFL++ on the same harnesses when afl-fuzz is installed (Debian afl++,
# optional: dev/deps --fuzz). Either engine fails the test when it finds a
# crash or sanitizer report. See fuzz/README.md.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use File::Copy qw(copy);

sub which { my $p = `sh -c 'command -v $_[0]' 2>/dev/null`; chomp $p; $p }

my $clang = which('clang');
plan skip_all => 'clang is not installed' unless $clang;
my $seconds = $ENV{KAMADO_FUZZ_SECONDS} || 60;
my @harnesses = qw(parser chunked head frame cgi_head proxy logfmt);

my $dir = tempdir(CLEANUP => 0);
note "work directory: $dir";
for my $harness (@harnesses) {
    my $bin = "$dir/fuzz_$harness";
    system($clang, "-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all",
        "fuzz/fuzz_$harness.c", '-o', $bin) == 0 or BAIL_OUT("can't build fuzz_$harness");
    mkdir "$dir/$harness";
    copy($_, "$dir/$harness/") for glob "fuzz/corpus/$harness/*";
    my $log = `cd $dir && $bin -max_total_time=$seconds -max_len=8192 $dir/$harness 2>&1`;
    is $?, 0, "libFuzzer: fuzz_$harness ran ${seconds}s without a crash" or diag substr($log, -3000);
    note "corpus after the run: $dir/$harness";
}

SKIP: {
    my $afl_fuzz = which('afl-fuzz');
    my $afl_cc = which($ENV{AFL_CC} || 'afl-clang-fast');
    skip 'AFL++ is not installed (Debian: afl++)', 3 * @harnesses
        unless $afl_fuzz && $afl_cc;

    my $build = "$dir/afl-build";
    {
        local $ENV{KAMADO_FUZZ_BUILD} = $build;
        my $out = `fuzz/afl-build @harnesses 2>&1`;
        $? == 0 or BAIL_OUT("fuzz/afl-build failed:\n$out");
    }
    # Bounded, unattended runs on a shared machine: no CPU-governor check,
    # no core pinning, no curses UI; a core_pattern that pipes cores to a
    # helper (systemd, apport) is fine because the crashes are files anyway.
    local $ENV{AFL_SKIP_CPUFREQ} = 1;
    local $ENV{AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES} = 1;
    local $ENV{AFL_NO_AFFINITY} = 1;
    local $ENV{AFL_NO_UI} = 1;
    local $ENV{AFL_FAST_CAL} = 1;
    for my $harness (@harnesses) {
        my $bin = "$build/fuzz_${harness}_afl";
        my $out = "$dir/afl-$harness";
        # -V: stop after that many seconds; -t 1000+: skip seeds that time
        # out under load instead of aborting. AFL++ skips a seed that
        # crashes with a warning (it aborts only when every seed does):
        # the warning fails the test, as libFuzzer's replay would.
        my @cmd = ($afl_fuzz, '-i', "fuzz/corpus/$harness", '-o', $out,
            '-V', $seconds, '-m', 'none', '-t', '1000+',
            '-c', "${bin}_cmplog", '--', $bin);
        my $log = `@cmd 2>&1`;
        my $status = $?;
        reap_strays($build);
        is $status, 0, "AFL++: fuzz_$harness ran ${seconds}s" or diag substr($log, -3000);
        my @bad_seeds = $log =~ /Test case '([^']*)' results in a crash/g;
        is "@bad_seeds", '', "AFL++: no seed in fuzz/corpus/$harness crashes";
        my @crashes = grep { !/README/ } glob "$out/default/crashes/*";
        is scalar @crashes, 0, "AFL++: no crash in fuzz_$harness" or do {
            for my $c (@crashes[0 .. ($#crashes < 4 ? $#crashes : 4)]) {
                open my $fh, '<:raw', $c or next;
                my $data = do { local $/; <$fh> };
                diag "$c\n  hex: " . unpack('H*', $data);
                diag `$bin $c 2>&1`;    # the driver replays a file: the report
            }
        };
        my @hangs = grep { !/README/ } glob "$out/default/hangs/*";
        diag scalar(@hangs) . " AFL++ hang(s) in $out/default/hangs (not counted as failure)"
            if @hangs;
        if (open my $fh, '<', "$out/default/fuzzer_stats") {
            my %s = map { /^(\w+)\s*:\s*(.*)$/ ? ($1, $2) : () } <$fh>;
            note "AFL++ $harness: $s{execs_done} execs, $s{corpus_count} in queue, "
                . "edges $s{edges_found}/$s{total_edges}";
        }
        note "AFL++ output: $out";
    }
}
done_testing;

# afl-fuzz 4.04c can leave a persistent-mode child of the CmpLog binary
# behind, stopped, when it exits: kill what still runs a binary built here.
sub reap_strays {
    my ($dir) = @_;
    for my $exe (glob '/proc/[0-9]*/exe') {
        my $path = readlink $exe;
        next unless defined $path && index($path, "$dir/") == 0;
        my ($pid) = $exe =~ m{^/proc/(\d+)/};
        kill 'KILL', $pid;
    }
}
