# Builds and runs t/c/test_cgi_head.c, the table-driven C unit tests of the
# CGI output head parser (src/proto/kd_cgi_head.c), and passes their TAP
# through: once with the system C compiler, and once more under
# AddressSanitizer + UndefinedBehaviorSanitizer when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_cgi_head.c'), 'test_cgi_head');
done_testing;
