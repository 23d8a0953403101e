# --proxy-protocol, version 1: the header's source address and port
# become REMOTE_ADDR and REMOTE_PORT (TCP4 and TCP6) for every request on
# the connection; UNKNOWN leaves the connection's own; the socket's peer
# is kamado.peer_addr; --trusted-proxy then applies to the header's
# source, not to the proxy that sent it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Kamado::Test qw(read_response);
use Kamado::Test::Proxy qw(start_proxied ask request proxy_v1);

my $server = start_proxied(args => ['--trusted-proxy', '10.0.0.0/8']);
my $port = $server->{proxy_port};

my ($env, $got) = ask($port, proxy_v1('192.0.2.1', '198.51.100.7', 12345, 443) . request());
ok $env, 'TCP4: served' or diag $got;
is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '192.0.2.1 12345', 'TCP4: REMOTE_ADDR and REMOTE_PORT from the header';
is $env->{'kamado.peer_addr'}, '127.0.0.1', 'TCP4: kamado.peer_addr is the socket\'s peer';
like $env->{'kamado.peer_port'}, qr/\A[1-9][0-9]*\z/, 'TCP4: kamado.peer_port';
isnt $env->{'kamado.peer_port'}, 12345, 'TCP4: the peer\'s own port';

($env, $got) = ask($port, proxy_v1('2001:db8::1', '2001:db8::2', 54321, 80) . request());
ok $env, 'TCP6: served' or diag $got;
is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '2001:db8::1 54321', 'TCP6: REMOTE_ADDR and REMOTE_PORT';

($env, $got) = ask($port, "PROXY UNKNOWN\r\n" . request());
ok $env, 'UNKNOWN: served' or diag $got;
is $env->{REMOTE_ADDR}, '127.0.0.1', 'UNKNOWN: the connection\'s own address';

# the header's source is what --trusted-proxy judges
($env) = ask($port, proxy_v1('198.51.100.3', '10.0.0.1', 4444, 80) . request('X-Forwarded-For' => '6.6.6.6'));
is $env->{REMOTE_ADDR}, '198.51.100.3', 'an untrusted source: its X-Forwarded-For is ignored';
is $env->{HTTP_X_FORWARDED_FOR}, '6.6.6.6', 'and passed through';
($env) = ask($port, proxy_v1('10.1.1.1', '10.0.0.1', 4444, 80)
    . request('X-Forwarded-For' => '203.0.113.9', 'X-Forwarded-Proto' => 'https'));
is $env->{REMOTE_ADDR}, '203.0.113.9', 'a trusted source (10.1.1.1): X-Forwarded-For applies on top';
is $env->{'psgi.url_scheme'}, 'https', 'and X-Forwarded-Proto';
is $env->{'kamado.peer_addr'}, '127.0.0.1', 'kamado.peer_addr is still the socket\'s peer';

# one header per connection: keep-alive requests keep its address
my $c = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port) or die $!;
my $buf = '';
syswrite $c, proxy_v1('192.0.2.77', '198.51.100.7', 1000, 80) . "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c, buffer => \$buf);
like $res && $res->{body}, qr/^REMOTE_ADDR=192\.0\.2\.77$/m, 'keep-alive: the first request';
syswrite $c, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c, buffer => \$buf);
like $res && $res->{body}, qr/^REMOTE_ADDR=192\.0\.2\.77$/m, 'keep-alive: the second request, same address';

# the plain listener of the same server is not affected
($env) = ask($server->port, request());
is $env->{REMOTE_ADDR}, '127.0.0.1', 'the plain listener: the peer';
is $env->{'kamado.peer_addr'}, '(none)', 'the plain listener: no kamado.peer_addr';
like $server->log, qr{accepting connections at 127\.0\.0\.1:\d+, 127\.0\.0\.1:$port \(PROXY protocol from 127\.0\.0\.0/8 ::1 unix:\)},
    'the start-up line names the PROXY protocol listener';
done_testing;
