# Builds and runs t/c/test_myreset.c, the C unit tests of the MariaDB
# session reset's packets and I/O (src/proto/kd_myreset.c), and passes their TAP
# through: once with the system C compiler, and once more under
# AddressSanitizer + UndefinedBehaviorSanitizer when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_myreset.c'), 'test_myreset');
done_testing;
