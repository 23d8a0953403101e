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
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);

my $root = File::Temp::tempdir(CLEANUP => 1);
sub put {
    my ($name, $content) = @_;
    # a new file each time, as editors and deploys write one
    open my $fh, '>', "$root/$name.new" or die;
    print $fh $content;
    close $fh;
    rename "$root/$name.new", "$root/$name" or die;
}
my $server = start_server(no_app => 1, workers => 2, args => ['--cgi-bin', $root, '--cgi-mode', 'fork', '--cgi-timeout', 1]);
sub get {
    my $raw = raw_request($server, "GET /cgi-bin/$_[0] HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0 };
}

put('app.cgi', "print qq{Content-Type: text/plain\\n\\n};\nprint 'version one' +;\n");
is get('app.cgi')->{status}, 500, 'a script with a syntax error: 500';
like $server->log, qr{syntax error at \Q$root\E/app\.cgi line 2}, "perl's error, with file and line, is in the log";
like $server->log, qr{\Q$root\E/app\.cgi: could not be compiled}, 'and Kamado says so';

put('app.cgi', "print qq{Content-Type: text/plain\\n\\n};\nprint 'version one';\n");
is get('app.cgi')->{body}, 'version one', 'after the fix the next request works';
put('app.cgi', "print qq{Content-Type: text/plain\\n\\n};\nprint 'version two, longer';\n");
my %seen = map { (get('app.cgi')->{body} => 1) } 1 .. 6;
is_deeply [keys %seen], ['version two, longer'], 'a changed script is compiled again, in every worker';

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
