# --trusted-proxy that does not cover the peer (the test connects from
# 127.0.0.1, and only 10.0.0.0/8 and fd00::/8 are trusted): every
# X-Forwarded-* field and X-Real-IP is passed to the app untouched and
# acted on by no one; REMOTE_ADDR is the peer, no kamado.peer_addr.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Test::Proxy qw(ENV_APP ask request);

my $server = start_server(app => ENV_APP, args => ['--trusted-proxy', '10.0.0.0/8', '--trusted-proxy', 'fd00::/8']);
my ($env, $got) = ask($server->port, request('X-Forwarded-For' => '203.0.113.9, 10.0.0.1',
    'X-Real-IP' => '198.51.100.4', 'X-Forwarded-Proto' => 'https', 'X-Forwarded-Port' => 443,
    'X-Forwarded-Host' => 'www.example.com'));
ok $env, 'served' or diag $got;
is $env->{REMOTE_ADDR}, '127.0.0.1', 'REMOTE_ADDR is the peer';
is $env->{'psgi.url_scheme'}, 'http', 'psgi.url_scheme stays http';
is $env->{HTTPS}, '(none)', 'no HTTPS';
is $env->{SERVER_PORT}, $server->port, 'SERVER_PORT is the listener\'s';
is $env->{HTTP_HOST}, 'kamado.test', 'HTTP_HOST is the request\'s';
is $env->{'kamado.peer_addr'}, '(none)', 'no kamado.peer_addr';
is $env->{HTTP_X_FORWARDED_FOR}, '203.0.113.9, 10.0.0.1', 'X-Forwarded-For passed through as it came';
is $env->{HTTP_X_REAL_IP}, '198.51.100.4', 'X-Real-IP too';
is $env->{HTTP_X_FORWARDED_PROTO}, 'https', 'X-Forwarded-Proto too';
done_testing;
