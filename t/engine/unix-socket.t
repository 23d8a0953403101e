# Listening on a unix socket (nginx in front).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response);

my $dir = tempdir(CLEANUP => 1);
my $server = start_server(unix => "$dir/k.sock",
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$_[0]{SERVER_NAME} $_[0]{SERVER_PORT} [$_[0]{REMOTE_ADDR}]"]] }');
my $c = $server->connect;
for (1 .. 2) {
    print $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    is $res->{status}, 200, "request $_ over the unix socket";
    is $res->{body}, 'localhost 0 []', 'SERVER_NAME, SERVER_PORT and REMOTE_ADDR for a unix socket';
}
done_testing;
