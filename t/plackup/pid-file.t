# plackup -s Kamado --pid-file FILE: the file holds the pid of the process
# plackup became, Kamado's supervisor, and is removed when it stops.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $dir = File::Temp->newdir;
my $file = "$dir/kamado.pid";
my $port = free_port();
my $server = start_plackup(port => $port,
    args => ['--host', '127.0.0.1', '--port', $port, '-E', 'deployment', '--pid-file', $file],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');
open my $fh, '<', $file or die "no pid file: $!\n" . $server->log;
is scalar <$fh>, $server->pid . "\n", "the file holds plackup's pid (the supervisor)";
is read_response($server->send_get('/'))->{body}, 'ok', 'it serves';
is $server->stop, 0, 'TERM: exit 0';
ok !-e $file, 'the file is removed';
done_testing;
