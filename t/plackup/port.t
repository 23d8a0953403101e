# plackup -s Kamado --port N: one listener, on every interface at N, as
# plackup's other servers do (plackup also passes listen => [":N"]; binding
# both used to fail with "Address already in use").
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $port = free_port();
my $server = start_plackup(port => $port, args => ['--port', $port],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["port $_[0]{SERVER_PORT}"]] }');
my $c = $server->connect;
print $c "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $res = read_response($c);
is $res && $res->{status}, 200, 'answers on 127.0.0.1';
is $res && $res->{body}, "port $port", 'SERVER_PORT is the port';
like $server->log, qr/accepting connections at 0\.0\.0\.0:$port with/, 'one listener, every interface';
unlike $server->log, qr/ignoring/, "none of plackup's own keys is taken for a misspelt option";
is $server->stop, 0, 'TERM stops plackup cleanly';
done_testing;
