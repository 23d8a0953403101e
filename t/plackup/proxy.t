# plackup -s Kamado takes --trusted-proxy and --proxy-protocol as kamado
# does: repeated, checked (one line naming the option), and acted on.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Kamado::Test::Plackup qw(start_plackup run_plackup free_port);
use Kamado::Test::Proxy qw(ENV_APP ask request proxy_v2);

my $plain = free_port();
my $hold = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => $plain, Listen => 1, ReuseAddr => 1);
my $proxied = free_port();
close $hold;
my $server = start_plackup(port => $plain, app => ENV_APP, args => ['-E', 'deployment',
    '--listen', "127.0.0.1:$plain", '--listen', "127.0.0.1:$proxied", '--proxy-protocol', "127.0.0.1:$proxied",
    '--trusted-proxy', '10.0.0.0/8', '--trusted-proxy', '127.0.0.1/32']);

my ($env, $got) = ask($plain, request('X-Forwarded-For' => '203.0.113.9, 10.0.0.1', 'X-Forwarded-Proto' => 'https'));
ok $env, 'served' or diag $got;
is $env->{REMOTE_ADDR}, '203.0.113.9', 'X-Forwarded-For past both --trusted-proxy blocks';
is "$env->{'psgi.url_scheme'} $env->{HTTPS}", 'https on', 'X-Forwarded-Proto';
($env, $got) = ask($proxied, proxy_v2('192.0.2.9', '192.0.2.1', 9999, 80) . request());
is $env && "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '192.0.2.9 9999', '--proxy-protocol: the header\'s source';
is $server->stop, 0, 'TERM stops plackup cleanly';

my $r = run_plackup('--port', free_port(), '--trusted-proxy', 'bogus', '-e', 'sub {}');
isnt $r->{status}, 0, 'a bad --trusted-proxy: non-zero exit';
like $r->{stderr}, qr/^kamado: --trusted-proxy 'bogus' is not an address or CIDR block/m, 'a bad --trusted-proxy: one line naming it';
done_testing;
