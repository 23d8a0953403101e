# Builds and runs t/c/test_spawn.c, the C unit tests of the worker
# template's fork loop (src/sys/kd_spawn.c): workers come back as the
# caller's children with their asks, a signal, the end of the asks.
# Plain, then under ASan + UBSan when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_spawn.c'), 'test_spawn');
done_testing;
