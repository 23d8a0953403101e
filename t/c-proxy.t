# Builds and runs t/c/test_proxy.c, the table-driven C unit tests of the
# PROXY protocol parser, address blocks and X-Forwarded-* fields
# (src/proto/kd_proxy.c), and passes their TAP through:
# once with the system C compiler, and once more under AddressSanitizer +
# UndefinedBehaviorSanitizer when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_proxy.c'), 'test_proxy');
done_testing;
