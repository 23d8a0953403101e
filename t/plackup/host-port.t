# plackup -s Kamado --host 127.0.0.1 --port N: one listener, at that
# address only.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $port = free_port();
my $server = start_plackup(port => $port, args => ['--host', '127.0.0.1', '--port', $port],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$_[0]{SERVER_NAME}:$_[0]{SERVER_PORT}"]] }');
my $c = $server->connect;
print $c "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $res = read_response($c);
is $res && $res->{status}, 200, 'answers';
is $res && $res->{body}, "127.0.0.1:$port", 'on the address asked for';
like $server->log, qr/accepting connections at 127\.0\.0\.1:$port with/, 'one listener, at 127.0.0.1';
is $server->stop, 0, 'TERM stops plackup cleanly';
done_testing;
