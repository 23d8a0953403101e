# What a module of the worker's library requires (bytes.pm loads
# bytes_heavy.pl on the first bytes::length) is that module's business,
# not a library of the script's: in perlrun it was compiled as the
# script's, deleted with the script's packages after the first request,
# and the second request died ("Undefined subroutine &bytes::length",
# Oddmuse's wiki.pl line 1349).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'bytes.cgi', "#!/usr/bin/perl\nuse bytes ();\nprint qq{Content-Type: text/plain\\n\\n}, bytes::length(qq{caf\\x{263a}}), qq{\\n};\n");
for my $mode (qw(perlrun registry)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $n (1 .. 3) {
        my $r = get_script($server, 'bytes.cgi');
        is "$r->{status} $r->{body}", "200 6\n", "$mode: request $n: bytes::length";
    }
    is $server->stop, 0, "$mode: stopped";
}
done_testing;
