# Auto mode's run-time net: a hazard the static check cannot see, shown by
# a run in the worker, demotes the script to fork mode for the requests
# after, with one log line naming the script and the hazard; the output
# is then plain CGI's again.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
mkdir "$root/lib" or die;
sub put { put_script($root, @_) }

# a module of the tree that counts in a variable it never declares (a
# symbolic reference: nothing in its source says it keeps state)
put('lib/Tally.pm', "package Tally;\nsub add { no strict 'refs'; my \$n = 'Tally::' . 'count'; return ++\${\$n} }\n1;\n");
put('tally.cgi', "#!/usr/bin/perl\nuse lib 'lib';\nuse Tally;\nprint qq{Content-Type: text/plain\\n\\n}, 'count=', Tally::add(), qq{\\n};\n");
my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root]);
like $server->log, qr/^/, 'started';
is get_script($server, 'tally.cgi')->{body}, "count=1\n", 'the first run, as under CGI';
like $server->log, qr{cgi auto: \Q$root\E/tally\.cgi runs in registry mode}, 'the static check saw nothing: registry';
my $second = get_script($server, 'tally.cgi')->{body};
like $server->log, qr{\[warn\].*cgi auto: \Q$root\E/tally\.cgi demoted: registry -> fork mode: B5 at run time: a run changed \$Tally::count},
    'the run changed a module\'s variable: demoted to fork, logged' or diag "second: $second";
is get_script($server, 'tally.cgi')->{body}, "count=1\n", 'the requests after: plain CGI\'s output';
is get_script($server, 'tally.cgi')->{body}, "count=1\n", '... again';
is scalar(() = $server->log =~ /tally\.cgi demoted/g), 1, 'one log line';

is $server->stop, 0, 'stopped';

# with --preload-cgi the module is loaded before the first run: that
# run's change is seen, and the second request is plain CGI's already
put('tally.cgi', "#!/usr/bin/perl\nuse lib 'lib';\nuse Tally;\nprint qq{Content-Type: text/plain\\n\\n}, 'count=', Tally::add(), qq{\\n};\n# again\n");
$server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--preload-cgi']);
is get_script($server, 'tally.cgi')->{body}, "count=1\n", '--preload-cgi: the first run';
like $server->log, qr{tally\.cgi demoted: registry -> fork mode: B5 at run time}, '... demoted after it';
is get_script($server, 'tally.cgi')->{body}, "count=1\n", '... the second request: plain CGI\'s output';
is $server->stop, 0, 'stopped';
done_testing;
