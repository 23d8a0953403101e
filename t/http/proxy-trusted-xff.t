# --trusted-proxy: from a trusted peer (the test connects from 127.0.0.1,
# trusted as 127.0.0.1/32), REMOTE_ADDR is the rightmost address of
# X-Forwarded-For that is not a trusted proxy's (the leftmost when all
# are), or X-Real-IP without X-Forwarded-For; a malformed element is
# never taken; the socket's peer stays in kamado.peer_addr/peer_port.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Test::Proxy qw(ENV_APP ask request);

my $server = start_server(app => ENV_APP, args => ['--trusted-proxy', '127.0.0.1/32', '--trusted-proxy', '10.0.0.0/8']);
my $port = $server->port;

for my $case (
    ['one client', ['X-Forwarded-For' => '203.0.113.9'], '203.0.113.9'],
    ['past the trusted hops, a forged left part unread',
        ['X-Forwarded-For' => '6.6.6.6, 203.0.113.9, 10.1.2.3, 127.0.0.1'], '203.0.113.9'],
    ['all trusted: the leftmost', ['X-Forwarded-For' => '10.9.9.9, 10.0.0.2'], '10.9.9.9'],
    ['two fields are one list', ['X-Forwarded-For' => '203.0.113.9', 'X-Forwarded-For' => '10.0.0.7'], '203.0.113.9'],
    ['IPv6', ['X-Forwarded-For' => '2001:db8::7'], '2001:db8::7'],
    ['X-Real-IP', ['X-Real-IP' => '198.51.100.4'], '198.51.100.4'],
    ['X-Forwarded-For wins over X-Real-IP', ['X-Real-IP' => '198.51.100.4', 'X-Forwarded-For' => '203.0.113.9'], '203.0.113.9'],
    ['a malformed rightmost element is not taken', ['X-Forwarded-For' => '203.0.113.9, bogus'], '127.0.0.1'],
    ['a malformed element ends the walk at the hop after it', ['X-Forwarded-For' => '<script>, 10.4.4.4'], '10.4.4.4'],
    ['a malformed X-Real-IP is not taken', ['X-Real-IP' => 'localhost'], '127.0.0.1'],
    ['no field: the peer', [], '127.0.0.1'],
) {
    my ($name, $fields, $want) = @$case;
    my ($env, $got) = ask($port, request(@$fields));
    ok $env, "$name: served" or diag $got;
    is $env->{REMOTE_ADDR}, $want, "$name: REMOTE_ADDR $want";
    is $env->{'kamado.peer_addr'}, '127.0.0.1', "$name: kamado.peer_addr is the peer";
    like $env->{'kamado.peer_port'}, qr/\A[1-9][0-9]*\z/, "$name: kamado.peer_port";
}

# a port in the element becomes REMOTE_PORT; else the peer's stays
my ($env) = ask($port, request('X-Forwarded-For' => '203.0.113.9:4711'));
is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '203.0.113.9 4711', 'ADDRESS:PORT gives REMOTE_PORT';
($env) = ask($port, request('X-Forwarded-For' => '[2001:db8::7]:4712'));
is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '2001:db8::7 4712', '[IPv6]:PORT too';
($env) = ask($port, request('X-Forwarded-For' => '203.0.113.9'));
is $env->{REMOTE_PORT}, $env->{'kamado.peer_port'}, 'without one, REMOTE_PORT is the peer\'s (as mod_remoteip)';
is $env->{HTTP_X_FORWARDED_FOR}, '203.0.113.9', 'the field itself still reaches the app';
done_testing;
