# --trusted-proxy on a dual-stack listener ([::]): a peer on IPv4 appears
# as ::ffff:127.0.0.1 and matches an IPv4 block (127.0.0.1) as well as
# itself; an IPv6 peer (::1) matches an IPv6 block only.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(read_until_close);
use Kamado::Test::Plackup qw(free_port);
use Kamado::Test::Proxy qw(ENV_APP env_of request);

sub ask_from {
    my ($host, $port) = @_;
    my $c = IO::Socket::IP->new(PeerHost => $host, PeerPort => $port) or die "Can't connect to [$host]:$port: $@";
    syswrite $c, request('X-Forwarded-For' => '203.0.113.9');
    my ($got) = read_until_close($c);
    return env_of($got) // {};
}

my $probe = IO::Socket::IP->new(LocalHost => '::1', LocalPort => 0, Listen => 1)
    or plan skip_all => "no IPv6 loopback here: $@";
close $probe;

for my $block ('127.0.0.1', '::1/128') {
    my $port = free_port();
    my $server = start_server(app => ENV_APP, self_bind => 1, port => $port,
        args => ['--listen', "[::]:$port", '--trusted-proxy', $block]);
    my $env = ask_from('127.0.0.1', $port);
    my $peer = $env->{'kamado.peer_addr'} eq '(none)' ? $env->{REMOTE_ADDR} : $env->{'kamado.peer_addr'};
    is $peer, '::ffff:127.0.0.1', "$block: an IPv4 peer is ::ffff:127.0.0.1";
    is $env->{REMOTE_ADDR}, $block eq '127.0.0.1' ? '203.0.113.9' : '::ffff:127.0.0.1',
        "$block: the IPv4 peer is " . ($block eq '127.0.0.1' ? '' : 'not ') . 'trusted';
    $env = ask_from('::1', $port);
    is $env->{REMOTE_ADDR}, $block eq '127.0.0.1' ? '::1' : '203.0.113.9',
        "$block: the IPv6 peer ::1 is " . ($block eq '127.0.0.1' ? 'not ' : '') . 'trusted';
}
done_testing;
