# Builds and runs t/c/test_frame.c, the table-driven C unit tests of the
# response body's framing (src/proto/kd_frame.c): chunk lines, the cut at
# Content-Length, the verdict on a body too long or too short, and every
# reason a connection is not kept alive. Plain, then under ASan + UBSan
# when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_frame.c'), 'test_frame');
done_testing;
