# --status-listen answers while every app worker is busy (no worker is
# taken to answer it), showing each of them in the app with its request.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_get status_json wait_file_app);

my $dir = File::Temp->newdir;
local $ENV{KT_DIR} = "$dir";
my $server = status_server(workers => 2, app => wait_file_app());

my @held = map { $server->send_get("/block?go&n=$_") } 1 .. 2;
my $s;
ok eventually(sub { $s = status_json($server); 2 == grep { $_->{state} eq 'app' } $s->{workers}->@* }),
    'both workers in the app' or diag explain $s;
is_deeply [sort map { $_->{request} } $s->{workers}->@*], ['GET /block?', 'GET /block?'],
    'each with its request line, the query hidden';

# while they are held: every page answers, at once
for my $path ('/', '/status.json', '/metrics') {
    my $t0 = Time::HiRes::time();
    my $res = status_get($server, $path);
    is $res->{status}, 200, "GET $path: 200 while every worker is busy";
    cmp_ok Time::HiRes::time() - $t0, '<', 5, '(not waiting for a worker)';
}
my $app = $server->send_get('/');
my $in_app = grep { $_->{state} eq 'app' } status_json($server)->{workers}->@*;
is $in_app, 2, 'an app request sent meanwhile waits: the two still held';

open my $go, '>', "$dir/go" or die;
close $go;
is read_response($_)->{status}, 200, 'a held request answered' for @held, $app;
is $server->stop, 0, 'the server stops cleanly';
done_testing;
