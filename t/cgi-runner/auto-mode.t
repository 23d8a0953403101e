# --cgi-mode auto, the default: each script runs in kamado check's verdict
# (the access log's %{kamado.cgi_mode}e says which), with plain CGI's
# output; a script edited from clean to hazardous, or a library it pulls
# in, is checked again and demoted on the next request (logged); a
# .kamado-cgi file and an explicit --cgi-mode win. Through kamado
# --cgi-bin and plackup -s Kamado.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server wait_until);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $logs = File::Temp::tempdir(CLEANUP => 1);
sub put { put_script($root, @_) }

put('clean.cgi', "#!/usr/bin/perl\nmy \$n = 0;\nsub bump { ++\$n }\nprint qq{Content-Type: text/plain\\n\\n}, 'n=', bump(), qq{\\n};\n");
put('state.cgi', "#!/usr/bin/perl\nuse feature 'state';\nsub next_id { state \$calls = 0; ++\$calls }\n"
    . "print qq{Content-Type: text/plain\\n\\n}, 'calls=', next_id(), qq{\\n};\n");
put('taint.cgi', "#!/usr/bin/perl -T\nprint qq{Content-Type: text/plain\\n\\n}, qq{tainted\\n};\n");
put('uses-lib.cgi', "#!/usr/bin/perl\nrequire './lib.pl';\nprint qq{Content-Type: text/plain\\n\\n}, greet(), qq{\\n};\n");
put('lib.pl', "sub greet { 'hello' }\n1;\n");

my $n = 0;
sub access_log { my ($file) = @_; open my $fh, '<', $file or return (); return <$fh> }
# mode(SERVER, LOG, SCRIPT) -> (body, the mode the access log gives)
sub run {
    my ($server, $log, $script) = @_;
    my $res = get_script($server, $script);
    my $want = ++$n;
    my @lines;
    wait_until { @lines = access_log($log); @lines >= $want } "access log line $want";
    my ($mode) = $lines[$want - 1] =~ m{\A/cgi-bin/\Q$script\E (\S+)$} or diag "line: $lines[$want - 1]";
    return ($res->{body}, $mode);
}

my $log = "$logs/kamado.log";
my @args = ('--cgi-bin', $root, '--access-log', $log, '--access-log-format', '%U %{kamado.cgi_mode}e');
my $server = start_server(no_app => 1, workers => 1, args => [@args]);
for (1, 2) {
    is_deeply [run($server, $log, 'clean.cgi')], ["n=1\n", 'registry'], "a clean script: registry, CGI's output (request $_)";
    is_deeply [run($server, $log, 'state.cgi')], ["calls=1\n", 'perlrun'], "a state variable: perlrun, CGI's output (request $_)";
    is_deeply [run($server, $log, 'taint.cgi')], ["tainted\n", 'fork'], "#! -T: fork (request $_)";
    is_deeply [run($server, $log, 'uses-lib.cgi')], ["hello\n", 'registry'], "a clean library: registry (request $_)";
}
like $server->log, qr{cgi auto: \Q$root\E/state\.cgi runs in perlrun mode: B8 at state\.cgi line 3: state \$calls}, 'the verdict logged with its reason';
is scalar(() = $server->log =~ /cgi auto: \Q$root\E\/clean\.cgi runs/g), 1, 'once per script version';

# edited from clean to hazardous: demoted on the next request
put('clean.cgi', "#!/usr/bin/perl\nuse constant STARTED => time;\nprint qq{Content-Type: text/plain\\n\\n}, 'started=', (time - STARTED < 60 ? 'now' : 'long ago'), qq{\\n};\n");
is_deeply [run($server, $log, 'clean.cgi')], ["started=now\n", 'perlrun'], 'the script made hazardous: perlrun on the next request';
like $server->log, qr{\[warn\].*cgi auto: \Q$root\E/clean\.cgi changed: registry -> perlrun mode: B6 }, 'the demotion logged as a warning';
# a library it pulls in made hazardous: the script is checked again
put('lib.pl', "sub greet { 'hello from ' . __PACKAGE__ }\n1;\n");
is_deeply [run($server, $log, 'uses-lib.cgi')], ["hello from main\n", 'fork'], 'its library made hazardous: fork, and main as under CGI';
like $server->log, qr{cgi auto: \Q$root\E/uses-lib\.cgi changed: registry -> fork mode: B3 at lib\.pl line 1}, '... logged, naming the library';
# a .kamado-cgi file wins
put('.kamado-cgi', "mode registry state.cgi\n");
is((run($server, $log, 'state.cgi'))[1], 'registry', 'a .kamado-cgi line wins over the verdict');
unlink "$root/.kamado-cgi";
is((run($server, $log, 'state.cgi'))[1], 'perlrun', '... and without it, the verdict again');
is $server->stop, 0, 'stopped';

# an explicit --cgi-mode wins
$n = 0;
$log = "$logs/explicit.log";
$server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'fork',
    '--access-log', $log, '--access-log-format', '%U %{kamado.cgi_mode}e']);
is((run($server, $log, 'state.cgi'))[1], 'fork', '--cgi-mode fork: fork, whatever the verdict');
is $server->stop, 0, 'stopped';

# --preload-cgi: the verdicts are made once, in the generation, before the
# workers fork; they inherit them
$server = start_server(no_app => 1, workers => 2, args => ['--cgi-bin', $root, '--preload-cgi']);
is get_script($server, 'state.cgi')->{body}, "calls=1\n", '--preload-cgi: the state script as under CGI';
is get_script($server, 'state.cgi')->{body}, "calls=1\n", '... twice';
like $server->log, qr{\] generation \d+: cgi auto: \Q$root\E/state\.cgi runs in perlrun mode}, 'its verdict made in the generation';
unlike $server->log, qr{worker \d+ .*cgi auto: \Q$root\E/state\.cgi}, 'not again in a worker';
is $server->stop, 0, 'stopped';

# plackup -s Kamado: auto by default too (plackup's --access-log is its
# own: the log lines and the worker's pid tell the modes)
put('pid.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\n}, \$\$;\n");
my $port = free_port();
$server = start_plackup(port => $port, workers => 1,
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["app"]] }',
    args => ['--port', $port, '-E', 'deployment', '--cgi-bin', "/cgi-bin=$root"]);
is get_script($server, 'state.cgi')->{body}, "calls=1\n", 'plackup -s Kamado: the state script as under CGI';
is get_script($server, 'state.cgi')->{body}, "calls=1\n", '... twice';
like $server->log, qr{cgi auto: \Q$root\E/state\.cgi runs in perlrun mode}, '... in perlrun mode';
my @pids = map { get_script($server, 'pid.cgi')->{body} } 1, 2;
is $pids[0], $pids[1], 'a clean script runs inside the worker (the same pid twice)';
like $server->log, qr{cgi auto: \Q$root\E/pid\.cgi runs in registry mode}, '... in registry mode';
is $server->stop, 0, 'plackup stopped';
done_testing;
