# --trusted-proxy: from a trusted peer, X-Forwarded-Proto gives
# psgi.url_scheme (and HTTPS=on for https); with --forwarded-host,
# X-Forwarded-Port SERVER_PORT, X-Forwarded-Host HTTP_HOST and
# SERVER_NAME; values that are not one scheme, port or host are ignored.
# Without --forwarded-host, those two are the client's own (a proxy that
# does not set them passes a client's through): HTTP_HOST, SERVER_NAME and
# SERVER_PORT stay the request's.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Test::Proxy qw(ENV_APP ask request);

my $server = start_server(app => ENV_APP, args => ['--trusted-proxy', '127.0.0.1', '--forwarded-host']);
my $port = $server->port;
my $none = '(none)';

for my $case (
    ['nothing forwarded', [], ['http', $none, $port, '127.0.0.1', 'kamado.test']],
    ['https', ['X-Forwarded-Proto' => 'https'], ['https', 'on', 443, '127.0.0.1', 'kamado.test']],
    ['HTTPS in capitals', ['X-Forwarded-Proto' => 'HTTPS'], ['https', 'on', 443, '127.0.0.1', 'kamado.test']],
    ['http', ['X-Forwarded-Proto' => 'http'], ['http', $none, 80, '127.0.0.1', 'kamado.test']],
    ['https on a port', ['X-Forwarded-Proto' => 'https', 'X-Forwarded-Port' => 8443],
        ['https', 'on', 8443, '127.0.0.1', 'kamado.test']],
    ['a host', ['X-Forwarded-Proto' => 'https', 'X-Forwarded-Host' => 'www.example.com'],
        ['https', 'on', 443, 'www.example.com', 'www.example.com']],
    ['a host with its port', ['X-Forwarded-Host' => 'www.example.com:8080'],
        ['http', $none, 8080, 'www.example.com', 'www.example.com:8080']],
    ['X-Forwarded-Port over the host\'s', ['X-Forwarded-Host' => 'www.example.com:8080', 'X-Forwarded-Port' => 9090],
        ['http', $none, 9090, 'www.example.com', 'www.example.com:8080']],
    ['a list of hosts: the last', ['X-Forwarded-Host' => 'a.example, b.example'],
        ['http', $none, $port, 'b.example', 'b.example']],
    ['a list of schemes is ignored', ['X-Forwarded-Proto' => 'https, http'], ['http', $none, $port, '127.0.0.1', 'kamado.test']],
    ['another scheme is ignored', ['X-Forwarded-Proto' => 'gopher'], ['http', $none, $port, '127.0.0.1', 'kamado.test']],
    ['a bad port is ignored', ['X-Forwarded-Port' => '99999'], ['http', $none, $port, '127.0.0.1', 'kamado.test']],
    ['a bad host is ignored', ['X-Forwarded-Host' => 'evil.example/path'], ['http', $none, $port, '127.0.0.1', 'kamado.test']],
) {
    my ($name, $fields, $want) = @$case;
    my ($env, $got) = ask($port, request(@$fields));
    ok $env, "$name: served" or diag $got;
    is_deeply [@$env{'psgi.url_scheme', 'HTTPS', 'SERVER_PORT', 'SERVER_NAME', 'HTTP_HOST'}], $want,
        "$name: psgi.url_scheme, HTTPS, SERVER_PORT, SERVER_NAME, HTTP_HOST";
}
$server->stop;

$server = start_server(app => ENV_APP, args => ['--trusted-proxy', '127.0.0.1']);
$port = $server->port;
for my $case (
    ['https: the scheme is still taken', ['X-Forwarded-Proto' => 'https'], ['https', 'on', 443, '127.0.0.1', 'kamado.test']],
    ['a host and a port are not', ['X-Forwarded-Host' => 'evil.example', 'X-Forwarded-Port' => 8443],
        ['http', $none, $port, '127.0.0.1', 'kamado.test']],
    ['nor a host with its port', ['X-Forwarded-Proto' => 'https', 'X-Forwarded-Host' => 'evil.example:8443'],
        ['https', 'on', 443, '127.0.0.1', 'kamado.test']],
) {
    my ($name, $fields, $want) = @$case;
    my ($env, $got) = ask($port, request(@$fields));
    ok $env, "without --forwarded-host, $name: served" or diag $got;
    is_deeply [@$env{'psgi.url_scheme', 'HTTPS', 'SERVER_PORT', 'SERVER_NAME', 'HTTP_HOST'}], $want,
        "without --forwarded-host, $name: psgi.url_scheme, HTTPS, SERVER_PORT, SERVER_NAME, HTTP_HOST";
}
done_testing;
