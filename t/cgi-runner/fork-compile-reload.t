# Mode fork: a script that does not compile is a 500 with perl's error
# (file and line) in the log, and the request after the fix works; a
# changed script, or a changed private library of it, is compiled again on
# its next request; a script silent for --cgi-timeout is stopped, with
# what it started; state never survives a request (a counter stays at 1, an exit in an eval ends the
# request), whichever worker serves it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script compile_error_and_reload);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/could not be compiled \(its errors are above\)|no output for \d+ s \(--cgi-timeout\)/);

my $root = File::Temp::tempdir(CLEANUP => 1);
sub put { put_script($root, @_) }
my $server = start_server(no_app => 1, workers => 2, args => ['--cgi-bin', $root, '--cgi-mode', 'fork', '--cgi-timeout', 1]);
sub get { get_script($server, @_) }

compile_error_and_reload($server, $root);

# (a library required at run time is loaded afresh by every request, as
# under CGI; these are loaded while the script compiles)
mkdir "$root/lib" or die;
put('lib.pl', "sub greeting { 'hello from lib one' }\n1;\n");
put('lib/Helper.pm', "package Helper;\nsub name { 'helper one' }\n1;\n");
put('uses-lib.cgi', "BEGIN { require './lib.pl' }\nuse lib 'lib';\nuse Helper;\n"
    . "print qq{Content-Type: text/plain\n\n}, greeting(), ', ', Helper::name();\n");
is get('uses-lib.cgi')->{body}, 'hello from lib one, helper one', 'a script with private libraries loaded at compile time';
put('lib.pl', "sub greeting { 'hello from lib two, changed' }\n1;\n");
my %seen2 = map { (get('uses-lib.cgi')->{body} => 1) } 1 .. 6;
is_deeply [keys %seen2], ['hello from lib two, changed, helper one'], 'a changed library: the script is compiled again';
put('lib/Helper.pm', "package Helper;\nsub name { 'helper two, changed' }\n1;\n");
%seen2 = map { (get('uses-lib.cgi')->{body} => 1) } 1 .. 6;
is_deeply [keys %seen2], ['hello from lib two, changed, helper two, changed'], 'a changed module of its own lib/ too';

put('state.cgi', <<'CGI');
$hits++;
my $count = 0;
sub bump { $count++ }
bump();
eval { print "Content-Type: text/plain\n\nhits=$hits count=$count"; exit 0; };
print " after the eval";
CGI
my @bodies = map { get('state.cgi')->{body} } 1 .. 6;
is_deeply \@bodies, [('hits=1 count=1') x 6], 'globals, file-scoped lexicals and exit in eval as under CGI, every time';

put('hangs.cgi', "\$| = 1; print qq{Content-Type: text/plain\\n\\nstarted\\n}; system 'sleep 60'; print qq{never\\n};\n");
put('silent.cgi', "sleep 60;\n");
for (['silent.cgi', 504, "Gateway Timeout\n"], ['hangs.cgi', 200, "started\n"]) {
    my ($script, $status, $body) = @$_;
    my $t0 = time;
    my $r = get($script);
    is $r->{status}, $status, "$script: stopped after --cgi-timeout ($status)";
    is $r->{body}, $body, "$script: with what it had sent";
    cmp_ok time - $t0, '<', 10, "$script: in time, its child (sleep) stopped too";
    like $server->log, qr{\Q$root/$script\E: no output for 1 s \(--cgi-timeout\): stopping it}, "$script: logged";
}
is get('app.cgi')->{body}, 'version two, longer', 'the workers serve on';

is $server->stop, 0, 'TERM: exit 0';
done_testing;
