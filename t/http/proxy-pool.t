# --pool with --proxy-protocol and --trusted-proxy: a connection handed to
# another pool's worker keeps what its PROXY header said (REMOTE_ADDR,
# REMOTE_PORT, kamado.peer_addr) and whether its peer is trusted, for the
# request handed over and the ones after it on the connection.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Kamado::Test qw(read_response);
use Kamado::Test::Proxy qw(KEYS start_proxied ask request proxy_v1);

my $app = 'my @keys = (qw(' . join(' ', KEYS) . '), "pid");
sub {
    my $env = shift;
    local $env->{pid} = $$;
    [200, ["Content-Type" => "text/plain"], [join "", map { "$_=" . ($env->{$_} // "(none)") . "\n" } @keys]];
}';
my $server = start_proxied(app => $app, args => ['--pool', 'slow:/slow', '--trusted-proxy', '10.0.0.0/8', '--trusted-proxy', '127.0.0.1']);
my $slow = sub { my $r = request(@_); $r =~ s{GET /who }{GET /slow/who }; $r };

my ($here) = ask($server->port, request());
my ($there) = ask($server->port, $slow->());
ok $here && $there && $here->{pid} != $there->{pid}, 'requests under /slow are served by the other pool\'s worker';

my ($env, $got) = ask($server->{proxy_port}, proxy_v1('198.51.100.3', '192.0.2.1', 4444, 80) . $slow->('X-Forwarded-For' => '6.6.6.6'));
ok $env, 'PROXY header, handed over: served' or diag $got;
is $env->{pid}, $there->{pid}, 'PROXY header, handed over: by the other pool';
is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '198.51.100.3 4444', 'PROXY header, handed over: its address and port';
is $env->{'kamado.peer_addr'}, '127.0.0.1', 'PROXY header, handed over: kamado.peer_addr';
is $env->{HTTP_X_FORWARDED_FOR}, '6.6.6.6', 'PROXY header, handed over: an untrusted source\'s field is not acted on';

($env) = ask($server->{proxy_port}, proxy_v1('10.1.1.1', '192.0.2.1', 4444, 80) . $slow->('X-Forwarded-For' => '203.0.113.9'));
is $env->{REMOTE_ADDR}, '203.0.113.9', 'a trusted source, handed over: still trusted';

($env) = ask($server->port, $slow->('X-Forwarded-For' => '203.0.113.10', 'X-Forwarded-Proto' => 'https'));
is "$env->{REMOTE_ADDR} $env->{'psgi.url_scheme'}", '203.0.113.10 https', 'a trusted peer, handed over: still trusted';

# keep-alive: the first request here, the second handed over
my $c = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $server->{proxy_port}) or die $!;
my $buf = '';
syswrite $c, proxy_v1('192.0.2.77', '192.0.2.1', 7777, 80) . "GET /who HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c, buffer => \$buf);
like $res && $res->{body}, qr/^REMOTE_ADDR=192\.0\.2\.77$/m, 'keep-alive: the first request, in the default pool';
syswrite $c, "GET /slow/who HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c, buffer => \$buf);
like $res && $res->{body}, qr/^pid=$there->{pid}$/m, 'keep-alive: the second, handed over';
like $res && $res->{body}, qr/^REMOTE_ADDR=192\.0\.2\.77$/m, 'keep-alive: the second keeps the header\'s address';
like $res && $res->{body}, qr/^REMOTE_PORT=7777$/m, 'and port';
done_testing;
