# Builds and runs t/c/test_conn_write.c, the C unit tests of the file
# hand-over (src/loop/kd_write.c, kd_write_file_last) on a real loop: the rest
# sent by the loop, intact, before the pipelined request; HEAD; the close
# at the write timeout freeing the loop's descriptor; a streamed response
# held for the loop (kd_write_more) while the client does not read. Plain, then under
# ASan + UBSan when clang is installed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use FindBin;
use File::Spec;
use Kamado::Test::C qw(run_c_tests);

run_c_tests(File::Spec->catfile($FindBin::Bin, 'c', 'test_conn_write.c'), 'test_conn_write');
done_testing;
