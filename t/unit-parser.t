# Runs the C unit tests of the parser and the chunked decoder
# (t/unit/parser.c): with the system compiler, and again under ASan and
# UBSan when clang is installed.
use strict;
use warnings;
use Test::More;
use Config;
use File::Temp qw(tempdir);

my $dir = tempdir(CLEANUP => 1);
my $cc = $Config{cc} || 'cc';
my $have_clang = system('clang --version >/dev/null 2>&1') == 0;
plan skip_all => "no C compiler ($cc)" if system("$cc --version >/dev/null 2>&1") != 0;

my @builds = (['system compiler', $cc, qw(-std=c99 -Wall -Wextra -Werror -O1 -g)]);
push @builds, ['ASan + UBSan', 'clang', qw(-std=c99 -Wall -Wextra -O1 -g -fno-omit-frame-pointer
    -fsanitize=address,undefined -fno-sanitize-recover=all)] if $have_clang;

for my $build (@builds) {
    my ($label, @cmd) = @$build;
    subtest $label => sub {
        my $bin = "$dir/parser-" . ($label =~ s/\W+/-/gr);
        my $out = `@cmd t/unit/parser.c -o $bin 2>&1`;
        is $?, 0, 'builds without warnings' or return diag $out;
        my $tap = `$bin 2>&1`;
        my $status = $?;
        my ($plan) = $tap =~ /^1\.\.(\d+)$/m;
        my @lines = $tap =~ /^((?:not )?ok \d+ - .*)$/mg;
        ok $plan && @lines == $plan, "ran all its tests (" . ($plan // 0) . ')';
        ok $_ !~ /^not ok/, $_ for grep { /^not ok/ } @lines;    # each failure, by name
        is scalar(grep { /^not ok/ } @lines), 0, 'no C test failed' or diag join "\n", grep { /^#|^not ok/ } split /\n/, $tap;
        is $status, 0, 'exit status 0';
        unlike $tap, qr/runtime error|AddressSanitizer|LeakSanitizer/, 'no sanitizer report';
    };
}
done_testing;
