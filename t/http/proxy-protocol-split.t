# --proxy-protocol: a PROXY header (v1 and v2) and the request after it
# sent a byte at a time, each byte its own write after a pause, are read
# as when they come at once.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Time::HiRes ();
use Kamado::Test::HTTP qw(read_until_close);
use Kamado::Test::Proxy qw(start_proxied env_of request proxy_v1 proxy_v2);

my $server = start_proxied();

for my $case (
    ['v1', proxy_v1('192.0.2.44', '198.51.100.7', 5555, 80), '192.0.2.44 5555'],
    ['v2 TCP6', proxy_v2('2001:db8::44', '2001:db8::2', 6666, 80), '2001:db8::44 6666'],
    ['v2 with a TLV', proxy_v2('192.0.2.45', '192.0.2.1', 7777, 80, "\x02\x00\x03abc"), '192.0.2.45 7777'],
) {
    my ($name, $header, $want) = @$case;
    my $c = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $server->{proxy_port}) or die $!;
    setsockopt $c, IPPROTO_TCP, TCP_NODELAY, 1;
    my $bytes = $header . request();
    for my $i (0 .. length($bytes) - 1) {
        syswrite $c, substr($bytes, $i, 1);
        Time::HiRes::sleep(0.002);
    }
    my ($got, $how) = read_until_close($c);
    my $env = env_of($got);
    ok $env, "$name: served after " . length($bytes) . ' one-byte writes' or diag "$how: $got";
    is $env && "$env->{REMOTE_ADDR} $env->{REMOTE_PORT}", $want, "$name: the header's address and port";
}
done_testing;
