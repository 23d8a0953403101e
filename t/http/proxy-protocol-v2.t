# --proxy-protocol, version 2 (binary): TCP over IPv4 and IPv6 give
# REMOTE_ADDR and REMOTE_PORT; TLVs after the addresses are skipped; a
# LOCAL command (a proxy's health check) leaves the connection's own
# address.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::Proxy qw(start_proxied ask request proxy_v2);

my $server = start_proxied();
my $port = $server->{proxy_port};

my ($env, $got) = ask($port, proxy_v2('192.0.2.1', '198.51.100.7', 12345, 443) . request());
ok $env, 'TCP4: served' or diag $got;
is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '192.0.2.1 12345', 'TCP4: REMOTE_ADDR and REMOTE_PORT';
is $env->{'kamado.peer_addr'}, '127.0.0.1', 'TCP4: kamado.peer_addr is the socket\'s peer';

($env, $got) = ask($port, proxy_v2('2001:db8::1', '2001:db8::2', 54321, 80) . request());
ok $env, 'TCP6: served' or diag $got;
is "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", '2001:db8::1 54321', 'TCP6: REMOTE_ADDR and REMOTE_PORT';

# PP2_TYPE_AUTHORITY "host1", PP2_TYPE_NOOP, and an AWS-style 0xEA TLV
my $tlvs = "\x02\x00\x05host1" . "\x04\x00\x03abc" . "\xea\x00\x17" . "\x01vpce-0123456789abcdef";
($env, $got) = ask($port, proxy_v2('10.1.2.3', '10.0.0.1', 1, 2, $tlvs) . request());
ok $env, 'TLVs: served' or diag $got;
is $env->{REMOTE_ADDR}, '10.1.2.3', 'TLVs: skipped, the address read';

($env, $got) = ask($port, proxy_v2('LOCAL') . request());
ok $env, 'LOCAL: served' or diag $got;
is $env->{REMOTE_ADDR}, '127.0.0.1', 'LOCAL: the connection\'s own address';
is $env->{'kamado.peer_addr'}, '127.0.0.1', 'LOCAL: kamado.peer_addr too';
done_testing;
