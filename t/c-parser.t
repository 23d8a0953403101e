# Builds and runs t/c/test_parser.c, the table-driven C unit tests of the
# request-head parser and the chunked decoder (src/proto/kd_parser.c, kd_chunked.c), and passes
# their TAP through: once with the system C compiler, and once more under
# AddressSanitizer + UndefinedBehaviorSanitizer when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_parser.c'), 'test_parser');
done_testing;
