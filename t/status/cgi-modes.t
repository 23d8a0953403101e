# The status page and /status.json list each CGI script's mode and why
# (--cgi-mode auto: as the workers chose it), a run-time demotion too.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(eventually);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::Status qw(status_server status_json status_get);

my $root = File::Temp::tempdir(CLEANUP => 1);
mkdir "$root/lib" or die;
put_script($root, 'clean.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\nclean\\n};\n");
put_script($root, 'state.cgi', "#!/usr/bin/perl\nuse feature 'state';\nsub n { state \$n = 0; ++\$n }\n"
    . "print qq{Content-Type: text/plain\\n\\n}, n(), qq{\\n};\n");
put_script($root, 'lib/Tally.pm', "package Tally;\nsub add { no strict 'refs'; my \$n = 'Tally::' . 'count'; ++\${\$n} }\n1;\n");
put_script($root, 'tally.cgi', "#!/usr/bin/perl\nuse lib 'lib';\nuse Tally;\nprint qq{Content-Type: text/plain\\n\\n}, Tally::add(), qq{\\n};\n");

my $server = status_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root]);
is get_script($server, $_)->{status}, 200, "GET $_" for qw(clean.cgi state.cgi tally.cgi tally.cgi);
my $s;
ok eventually(sub { $s = status_json($server); ($s->{cgi_scripts} // [])->@* == 3 }), 'three scripts in /status.json'
    or diag explain $s->{cgi_scripts};
my %by = map { ($_->{script} =~ m{([^/]+)\z})[0] => $_ } ($s->{cgi_scripts} // [])->@*;
is $by{'clean.cgi'}{mode}, 'registry', 'clean.cgi: registry';
is $by{'clean.cgi'}{script}, "$root/clean.cgi", '... by its path';
like $by{'clean.cgi'}{reason}, qr/no hazard found/, '... and why';
is $by{'state.cgi'}{mode}, 'perlrun', 'state.cgi: perlrun';
like $by{'state.cgi'}{reason}, qr/\AB8 at state\.cgi line 3: state \$n/, '... because of its state variable';
is $by{'tally.cgi'}{mode}, 'fork', 'tally.cgi: fork, demoted at run time';
ok $by{'tally.cgi'}{demoted}, '... says so';
like $by{'tally.cgi'}{reason}, qr/\AB5 at run time: a run changed \$Tally::count/, '... and why';

my $html = status_get($server, '/')->{content};
like $html, qr{<table id="cgi-scripts">}, 'the status page has the table';
like $html, qr{<td>\Q$root\E/state\.cgi</td><td>perlrun</td><td>B8 at state\.cgi line 3: state \$n}, '... a row per script';
like $html, qr{<td>fork \(demoted at run time\)</td>}, '... a demotion said';
is $server->stop, 0, 'stopped';
done_testing;
