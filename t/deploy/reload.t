# kamado --reload: a change to the app file, or to a module under an -I
# directory, is served within seconds, under load, without one failed
# request (the new generation serves before the old one drains).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::Load;

my $dir = File::Temp->newdir;
my $lib = File::Temp->newdir;
sub spit {
    my ($file, $text) = @_;
    open my $fh, '>', "$file.new" or die $!;
    print $fh $text;
    close $fh;
    rename "$file.new", $file or die $!;
}
spit("$lib/KamadoReloadTest.pm", "package KamadoReloadTest; sub v { 'lib1' } 1;\n");
my $app = sub { qq{use KamadoReloadTest; sub { [200, ["Content-Type" => "text/plain"], ["$_[0] " . KamadoReloadTest::v()]] }\n} };
spit("$dir/app.psgi", $app->('app1'));
my $server = start_server(app_file => "$dir/app.psgi", workers => 2, args => ['--reload', '-I', "$lib"]);
like $server->log, qr/--reload: watching \Q$dir\E, \Q$lib\E for changes/, 'it watches the app directory and -I';

sub body {
    my $res = read_response($server->send_get('/'));
    return $res && $res->{status} == 200 ? $res->{body} : 'error';
}
is body(), 'app1 lib1', 'the first version';
my $load = Kamado::Test::Load->start($server, clients => 2);

spit("$dir/app.psgi", $app->('app2'));
wait_until { body() eq 'app2 lib1' } 'the edited app file is served';
like $server->log, qr/--reload: changed: \Q$dir\E\/app\.psgi\b.*; loading/, 'the log names the file';

spit("$lib/KamadoReloadTest.pm", "package KamadoReloadTest; sub v { 'lib2' } 1;\n");
wait_until { body() eq 'app2 lib2' } 'the edited module under -I is served';

ok $load->wait_for_requests(200), 'the load went on';
$load->stop_ok('requests during the reloads', 200);
my @gens = $server->log =~ /generation (\d+) serves/g;
is_deeply \@gens, [2, 3], 'one reload per change';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
