# plackup -s Kamado -R DIR: Kamado's own reload (kamado --reload), not
# plackup's restarter: a change to the app under DIR is served by a new
# generation while the old one serves on, so no request fails, under
# load; an edit that does not compile is logged and the old code keeps
# serving; the fix is served. TERM to plackup stops it all.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(read_response eventually);
use Kamado::Test::Load;
use Kamado::Test::Plackup qw(start_plackup free_port);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/generation \d+ failed to start|generation \d+ keeps serving/);

my $dir = tempdir(CLEANUP => 1);
my $write_app = sub {
    my ($source) = @_;
    open my $fh, '>', "$dir/app.psgi.new" or die;
    print $fh $source;
    close $fh;
    rename "$dir/app.psgi.new", "$dir/app.psgi" or die;
};
my $app = sub { qq{sub { [200, ["Content-Type" => "text/plain"], ["$_[0]"]] }\n} };
$write_app->($app->('first'));
my $port = free_port();
my $server = start_plackup(port => $port, app_file => "$dir/app.psgi",
    args => ['--host', '127.0.0.1', '--port', $port, '-E', 'deployment', '-R', $dir, '--workers', 2]);
my $get = sub {
    my $c = eval { $server->send_get('/') } or return 'refused';
    my $res = read_response($c, timeout => 5);
    return $res && $res->{status} == 200 ? $res->{body} : 'error';
};
is $get->(), 'first', 'serves the app';
like $server->log, qr/--reload: watching \Q$dir\E for changes/, "Kamado's supervisor watches -R DIR";
my $load = Kamado::Test::Load->start($server, clients => 2);

$write_app->($app->('second and longer'));
ok eventually(sub { $get->() eq 'second and longer' }), 'a change under -R DIR is served';
# (its workers may answer before the supervisor has logged it)
ok eventually(sub { $server->log =~ /generation 2 serves; generation 1 finishes/ }), 'by a new generation'
    or diag $server->log;
unlike $server->log, qr/Killing the existing server/, "not by plackup's restarter";

$write_app->("sub { [200, [], ['broken'\n");
ok eventually(sub { $server->log =~ /generation 3 failed to start \(.*app\.psgi line \d.*\); generation 2 keeps serving/s }),
    'an edit that does not compile: the error is logged' or diag $server->log;
is $get->(), 'second and longer', 'and the old code keeps serving';

$write_app->($app->('third'));
ok eventually(sub { $get->() eq 'third' }), 'the fix is served';
$load->stop_ok('requests during the reloads', 100);

my @gens = $server->generations;
is $server->stop, 0, 'TERM stops plackup cleanly';
ok eventually(sub { !grep { kill 0, $_ } @gens }), 'and the generation it ran';
done_testing;
