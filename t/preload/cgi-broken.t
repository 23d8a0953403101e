# --preload-cgi with a script that does not compile: the server starts,
# the compile error is logged naming the script before it accepts, the
# script answers 500 and the others are served; a script added after the
# start is compiled when first asked for.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/could not be compiled \(its errors are above\)/);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'good.cgi', "print qq{Content-Type: text/plain\\n\\ngood};\n");
put_script($root, 'broken.cgi', "print qq{Content-Type: text/plain\\n\\n};\nprint 'broken' +;\n");
for my $mode (qw(registry fork)) {
    my $server = start_server(no_app => 1, workers => 2,
        args => ['--cgi-bin', $root, '--cgi-mode', $mode, '--preload-cgi']);
    my ($before) = $server->log =~ /\A(.*?)accepting connections/s;
    like $before, qr{syntax error at \Q$root\E/broken\.cgi line 2}, "$mode: perl's error is logged at start-up";
    like $before, qr{\Q$root\E/broken\.cgi: could not be compiled}, "$mode: naming the script";
    is get_script($server, 'broken.cgi')->{status}, 500, "$mode: the broken script answers 500";
    is get_script($server, 'good.cgi')->{body}, 'good', "$mode: the others are served";
    put_script($root, "later-$mode.cgi", "print qq{Content-Type: text/plain\\n\\nadded later};\n");
    is get_script($server, "later-$mode.cgi")->{body}, 'added later', "$mode: a script added after the start works";
    is $server->stop, 0, "$mode: stops cleanly";
}
done_testing;
