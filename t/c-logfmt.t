# Builds and runs t/c/test_logfmt.c, the C unit tests of the access log's
# formats (src/proto/kd_logfmt.c): compiling a LogFormat, escaping, the %t
# text; and passes their TAP through: once with the system C compiler,
# and once more under AddressSanitizer + UndefinedBehaviorSanitizer when
# clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_logfmt.c'), 'test_logfmt');
done_testing;
