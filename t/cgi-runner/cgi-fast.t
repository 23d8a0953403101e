# A CGI::Fast loop (SmokePing's smokeping.cgi, munin's CGI scripts) run
# as a CGI script: plain CGI runs the loop once per request, and so does
# every mode (issue 24, item 6): in registry and perlrun the FCGI request
# of the first run was kept, and the second run answered 500.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

plan skip_all => 'CGI::Fast is not installed (Debian libcgi-fast-perl)' unless eval { require CGI::Fast; 1 };
my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'fast.cgi', "#!/usr/bin/perl\nuse CGI::Fast;\nmy \$runs = 0;\n"
    . "while (my \$q = CGI::Fast->new) {\n    \$runs++;\n"
    . "    print \$q->header('text/plain'), 'n=', scalar(\$q->param('n')), ' runs=', \$runs, qq{\\n};\n}\n");
for my $mode (qw(registry perlrun fork exec auto)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $n (1 .. 3) {
        my $r = get_script($server, "fast.cgi?n=$n");
        is $r->{status}, 200, "$mode: request $n answered";
        is $r->{body}, "n=$n runs=1\n", "$mode: request $n: the loop once, with its own parameters";
    }
    is $server->stop, 0, "$mode: stopped";
}
done_testing;
