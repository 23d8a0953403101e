# Listening on a unix socket: requests are served over it, keep-alive and
# Connection: close work as over TCP.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response);

my $dir = tempdir(CLEANUP => 1);
my $server = start_server(unix => "$dir/k.sock",
    app => 'sub { my $e = shift; my $in = do { local $/; my $fh = $e->{"psgi.input"}; <$fh> } // ""; [200, ["Content-Type" => "text/plain"], ["$e->{REQUEST_METHOD} $e->{PATH_INFO} $in"]] }');
ok -S "$dir/k.sock", 'the socket exists';

my $c = $server->connect;
isa_ok $c, 'IO::Socket::UNIX';
my $buf = '';
syswrite $c, "GET /one HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c, buffer => \$buf);
is $res && $res->{status}, 200, 'a request over the unix socket';
is $res->{body}, 'GET /one ', 'its body';
syswrite $c, "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
$res = read_response($c, buffer => \$buf);
is $res && $res->{body}, 'POST /two hello', 'a second one on the same connection, with a body';
syswrite $c, "GET /three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my ($got, $how) = read_until_close($c);
$res = parse_response($buf . $got);
is $res && $res->{body}, 'GET /three ', 'a third';
is $res->{headers}{connection}, 'close', 'with Connection: close';
is $how, 'eof', 'and closed';
done_testing;
