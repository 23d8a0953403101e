# Builds and runs t/c/test_scoreboard.c, the C unit tests of the
# scoreboard (src/board/kd_scoreboard.c): layout, claim and clear, the request
# line cut to fit, a board published to a file and attached, fork, and a reader racing
# a writer. Plain, then under ASan + UBSan when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_scoreboard.c'), 'test_scoreboard');
done_testing;
