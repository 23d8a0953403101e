# Builds and runs t/c/test_stream.c, the C unit tests of streams
# (src/loop/kd_stream.c) on a real loop polled as an async worker polls
# it: held writes sent in order and the drain posted, the end before the
# pipelined request, the cut past write_buffer, a client leaving an idle
# stream posted as gone, max_streams, a released connection. Plain, then
# under ASan + UBSan when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_stream.c'), 'test_stream');
done_testing;
