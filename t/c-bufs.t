# Builds and runs t/c/test_bufs.c, the C unit tests of the read buffers
# (src/loop/kd_bufs.c) on a real loop: an idle keep-alive connection holds
# none, one with bytes to read or being served holds one (a head in
# pieces, pipelined requests, a body), and the worker keeps only a few
# free. Plain, then under ASan + UBSan when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_bufs.c'), 'test_bufs');
done_testing;
