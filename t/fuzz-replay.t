# Replays the saved fuzz corpus (fuzz/corpus/) through the libFuzzer
# harnesses under ASan and UBSan: every input that ever mattered, fast.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);

my $clang = `sh -c 'command -v clang' 2>/dev/null`;
chomp $clang;
plan skip_all => 'clang is not installed (the fuzz harnesses need libFuzzer)' unless $clang;

my $dir = tempdir(CLEANUP => 1);
for my $harness (qw(parser chunked head frame date cgi_head proxy smaps logfmt myreset)) {
    my $bin = "$dir/fuzz_$harness";
    my $out = `$clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all fuzz/fuzz_$harness.c -o $bin 2>&1`;
    is $?, 0, "fuzz_$harness builds" or diag $out;
    my @inputs = glob "fuzz/corpus/$harness/*";
    ok @inputs > 0, "fuzz/corpus/$harness has inputs";
    my $run = `$bin @inputs 2>&1`;
    is $?, 0, "fuzz_$harness replays " . @inputs . ' inputs' or diag substr($run, -2000);
    unlike $run, qr/runtime error|AddressSanitizer|deadly signal/, "no sanitizer report for $harness";
}
done_testing;
