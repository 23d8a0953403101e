package Kamado::Test::C;
use 5.024;
use strict;
use warnings;
no warnings "qw";    # "-fsanitize=address,undefined" has a comma on purpose

# Builds and runs a C unit test of t/c/ (TAP on stdout: "ok N - name",
# diagnostics "# ...", the plan "1..N" last) and passes its TAP through:
# once with the system C compiler, and once more under AddressSanitizer +
# UndefinedBehaviorSanitizer when clang is installed.

use Config;
use Exporter 'import';
use File::Spec;
use File::Temp qw(tempdir);
use Test::More;

our @EXPORT_OK = qw(run_c_tests);

my $null = File::Spec->devnull;

sub works { system("@_ --version >$null 2>&1") == 0 }

# run_c_tests($source_path, $name): the subtests of both builds, or a skip
# of the whole file when there is no compiler.
sub run_c_tests {
    my ($src, $name) = @_;
    # the system compiler: perl's own, else cc, else clang
    my ($cc) = grep { works($_) } grep { defined && length } $Config{cc}, 'cc', 'clang';
    my $have_clang = works('clang');
    plan skip_all => "no C compiler found (tried '" . ($Config{cc} // '') . "', cc, clang)"
        unless $cc || $have_clang;
    my $dir = tempdir("kamado-c-$name-XXXXXX", TMPDIR => 1, CLEANUP => 1);

    my @builds;
    push @builds, ["system compiler ($cc)", 'plain', split(' ', $cc),
        qw(-std=c99 -Wall -Wextra -Werror -O1 -g)] if $cc;
    push @builds, ['clang ASan + UBSan', 'asan', 'clang',
        qw(-std=c99 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined
           -fno-omit-frame-pointer -fno-sanitize-recover=all)] if $have_clang;

    # leak checking would only test the harnesses, and LeakSanitizer
    # cannot run in some sandboxes (ptrace)
    local $ENV{ASAN_OPTIONS} = 'detect_leaks=0:abort_on_error=0:' . ($ENV{ASAN_OPTIONS} // '');
    local $ENV{UBSAN_OPTIONS} = 'print_stacktrace=1:' . ($ENV{UBSAN_OPTIONS} // '');

    for my $build (@builds) {
        my ($label, $tag, @cc) = @$build;
        subtest $label => sub {
            my $bin = "$dir/$name-$tag";
            my ($status, $out, $err) = run_cmd($dir, "cc-$tag", @cc, $src, '-o', $bin);
            is $status, 0, "compiles without warnings: @cc" or return diag $out . $err;

            ($status, $out, $err) = run_cmd($dir, "run-$tag", $bin);
            pass_through($out);
            is $status, 0, 'exit status 0' or diag sprintf 'wait status %d (exit %d, signal %d)',
                $status, $status >> 8, $status & 127;
            unlike $err, qr/runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer/,
                'no sanitizer report' or diag $err;
            is $err, '', 'nothing on stderr' or diag $err if $tag eq 'plain';
        };
    }
}

# Runs a command (a list, no shell) with stdout and stderr in files.
# Returns (wait status, stdout, stderr).
sub run_cmd {
    my ($dir, $name, @cmd) = @_;
    my ($out, $err) = ("$dir/$name.out", "$dir/$name.err");
    open my $save_out, '>&', \*STDOUT or die "dup STDOUT: $!";
    open my $save_err, '>&', \*STDERR or die "dup STDERR: $!";
    open STDOUT, '>', $out or die "$out: $!";
    open STDERR, '>', $err or die "$err: $!";
    my $status = system { $cmd[0] } @cmd;
    open STDOUT, '>&', $save_out or die "restore STDOUT: $!";
    open STDERR, '>&', $save_err or die "restore STDERR: $!";
    my $slurp = sub { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' };
    return ($status, $slurp->($out), $slurp->($err));
}

# Passes the C program's TAP through, one Test::More test per C test.
sub pass_through {
    my ($tap) = @_;
    my (@results, $plan, $current);
    for my $line (split /\n/, $tap) {
        if ($line =~ /^(not )?ok (\d+)(?: - (.*))?$/) {
            push @results, $current = { ok => !$1, num => $2, name => $3 // '', diag => [] };
        } elsif ($line =~ /^1\.\.(\d+)$/) {
            $plan = $1;
        } elsif ($line =~ /^#\s?(.*)$/) {
            if ($current && !$current->{ok}) { push @{ $current->{diag} }, $1 }
            else { note $1 }
        } elsif ($line =~ /^Bail out!/) {
            fail $line;
        }
    }
    for my $r (@results) {
        ok $r->{ok}, "C $r->{num} - $r->{name}" or diag join "\n", @{ $r->{diag} };
    }
    ok defined $plan, 'the C program printed its plan' or return;
    is scalar(@results), $plan, "it ran all of its $plan tests";
    is_deeply [ map { $_->{num} } @results ], [ 1 .. @results ], 'its tests are numbered in order';
    is scalar(grep { !$_->{ok} } @results), 0, 'no C test failed';
}

1;
