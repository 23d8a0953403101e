# Builds and runs t/c/test_date.c, the C unit tests of the HTTP date reader
# and writer (src/proto/kd_date.c: a CGI script's Last-Modified, as Apache reads
# it), and passes their TAP through: once with the system C compiler, and
# once more under AddressSanitizer + UndefinedBehaviorSanitizer when clang
# is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_date.c'), 'test_date');
done_testing;
