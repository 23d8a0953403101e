# --proxy-protocol-from: a PROXY header is taken only from the proxies
# named. With --proxy-protocol-from 127.0.0.2, a connection from
# 127.0.0.1 carrying a well-formed header that claims 203.0.113.9 is
# closed before any answer (the client cannot choose its REMOTE_ADDR),
# while one from 127.0.0.2 is served as that client. The plain listener
# is not affected, and without the option a proxy on the machine
# (127.0.0.0/8) is taken, as the ready line says.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Kamado::Test::HTTP qw(read_until_close);
use Kamado::Test::Proxy qw(start_proxied ask env_of request proxy_v1);

my $claim = proxy_v1('203.0.113.9', '127.0.0.1', 4711, 80) . request();
sub from {
    my ($source, $port, $bytes) = @_;
    my $c = IO::Socket::IP->new(LocalHost => $source, PeerHost => '127.0.0.1', PeerPort => $port)
        or die "can't connect from $source: $@";
    syswrite $c, $bytes;
    my ($got) = read_until_close($c);
    return ($got, env_of($got));
}

my $server = start_proxied(args => ['--proxy-protocol-from', '127.0.0.2']);
my $port = $server->{proxy_port};
my ($got, $env) = from('127.0.0.1', $port, $claim);
is $got, '', 'a PROXY header from 127.0.0.1, not named: closed without an answer';
($got, $env) = from('127.0.0.2', $port, $claim);
is $env && $env->{REMOTE_ADDR}, '203.0.113.9', 'from 127.0.0.2, named: the client it names';
is $env && $env->{'kamado.peer_addr'}, '127.0.0.2', 'and the peer was the proxy';
($env) = ask($server->port, request());
is $env && $env->{REMOTE_ADDR}, '127.0.0.1', 'the plain listener serves 127.0.0.1 as before';
like $server->log, qr{\(PROXY protocol from 127\.0\.0\.2\)}, 'the ready line names the sources';
is $server->stop, 0, 'the server stops cleanly';

$server = start_proxied();
($got, $env) = from('127.0.0.1', $server->{proxy_port}, $claim);
is $env && $env->{REMOTE_ADDR}, '203.0.113.9', 'by default, a proxy on this machine is taken';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
