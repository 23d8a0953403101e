# Every hazard fixture of t/cgi/ (t/cgi-runner/fixtures.t) gives the same
# bytes as plain CGI with --preload-cgi too, in the modes it changes most:
# registry (every script compiled in the generation, before the workers
# fork) and fork (each worker's zygotes started before it accepts).
use strict;
use warnings;
$ENV{KAMADO_TEST_PRELOAD_CGI} = 1;
$ENV{KAMADO_TEST_CGI_MODES} ||= 'registry,fork';
do './t/cgi-runner/fixtures.t' or die $@ || $!;
