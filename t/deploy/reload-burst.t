# kamado --reload: a burst of changes (ten saves of two files in a row,
# as a git checkout makes) loads the app once, with the last version;
# editors' swap and backup files and the error log do not count.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response wait_until eventually);

my $dir = File::Temp->newdir;
sub spit {
    my ($file, $text) = @_;
    open my $fh, '>', "$dir/$file" or die $!;
    print $fh $text;
    close $fh;
}
my $app = sub { qq{do "$dir/lib.pl"; sub { [200, ["Content-Type" => "text/plain"], ["$_[0] " . lib_version()]] }\n} };
spit('lib.pl', "sub lib_version { 'lib0' } 1;\n");
spit('app.psgi', $app->('app0'));
my $server = start_server(app_file => "$dir/app.psgi", workers => 1,
    args => ['--reload', '--error-log', "$dir/kamado.err"], no_wait => 1);
sub log_text { open my $fh, '<', "$dir/kamado.err" or return ''; local $/; <$fh> }
ok eventually(sub { log_text() =~ /accepting connections/ }), 'kamado serves' or BAIL_OUT(log_text());
sub body {
    my $res = read_response($server->send_get('/'));
    return $res && $res->{status} == 200 ? $res->{body} : 'error';
}
is body(), 'app0 lib0', 'the first version';

for my $n (1 .. 10) {
    spit('lib.pl', "sub lib_version { 'lib$n' } 1;\n");
    spit('app.psgi', $app->("app$n"));
}
wait_until { body() eq 'app10 lib10' } 'the last version is served';
my @reloads = log_text() =~ /--reload: .*loading/g;
is scalar @reloads, 1, 'after one reload' or diag log_text();
like $reloads[0], qr/changed: \Q$dir\E\/app\.psgi \Q$dir\E\/lib\.pl;/, 'naming both files';

# none of these is the app's code
spit('.app.psgi.swp', 'x');
spit('app.psgi~', 'x');
spit('4913', '');
spit('notes.log', 'x');
mkdir "$dir/.git";
# then a change that counts: its reload comes after any the files above
# made (inotify keeps the order), alone or in the same burst
spit('app.psgi', $app->('app11'));
wait_until { body() eq 'app11 lib10' } 'a later change is served';
@reloads = log_text() =~ /--reload: .*loading/g;
is scalar @reloads, 2, "no reload for swap, backup, probe or log files, nor for the error log" or diag log_text();
like $reloads[1], qr/changed: \Q$dir\E\/app\.psgi;/, 'the next one names the app alone';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
