# plackup -s Kamado -R DIR: plackup's restarter runs Kamado (supervisor,
# generation, workers) in a child and, when a file under DIR changes,
# stops it with TERM and starts a new one, which loads the app again.
# TERM to plackup stops the server it runs too.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(read_response eventually);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $dir = tempdir(CLEANUP => 1);
my $write_app = sub {
    my ($text) = @_;
    open my $fh, '>', "$dir/app.psgi.new" or die;
    print $fh qq{sub { [200, ["Content-Type" => "text/plain"], ["$text"]] }\n};
    close $fh;
    rename "$dir/app.psgi.new", "$dir/app.psgi" or die;
};
$write_app->('first');
my $port = free_port();
my $server = start_plackup(port => $port, app_file => "$dir/app.psgi",
    args => ['--host', '127.0.0.1', '--port', $port, '-E', 'deployment', '-R', $dir, '--workers', 2]);
my $get = sub {
    my $c = eval { $server->send_get('/') } or return '';    # refused while it restarts
    my $res = read_response($c, timeout => 2);
    return $res ? $res->{body} : '';
};
is $get->(), 'first', 'serves the app';
$write_app->('second and longer');
ok eventually(sub { $get->() eq 'second and longer' }, 30), 'a change under -R DIR restarts the server with the new app';
like $server->log, qr/Killing the existing server/, "plackup's restarter did it";
# (the new workers may answer before their supervisor logs that it is up)
my @masters;
ok eventually(sub { @masters = $server->log =~ /\[kamado\] \[(\d+)\] accepting connections/g; @masters == 2 }),
    'two Kamado servers in turn' or diag $server->log;
is $server->stop, 0, 'TERM stops plackup cleanly';
ok eventually(sub { !grep { kill 0, $_ } @masters }), 'and the server it ran';
done_testing;
