# Builds and runs t/c/test_evict.c, the C unit tests of evict_when_full
# (src/loop/kd_intake.c) on a real loop: at max_connections, a new client
# closes the oldest connection waiting for its client, and only with the
# setting. Plain, then under ASan + UBSan when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_evict.c'), 'test_evict');
done_testing;
