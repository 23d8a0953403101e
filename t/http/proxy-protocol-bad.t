# --proxy-protocol: a connection whose PROXY header is malformed, missing
# (plain HTTP), or not whole within --header-timeout is closed without a
# byte of answer (so no request reached the app); good connections are
# served meanwhile.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Time::HiRes ();
use Kamado::Test::HTTP qw(read_until_close);
use Kamado::Test::Proxy qw(start_proxied ask request proxy_v1 proxy_v2 V2_SIG);

my $server = start_proxied(args => ['--header-timeout', 3]);
my $port = $server->{proxy_port};

for my $case (
    ['no header: plain HTTP', request()],
    ['v1 with three fields', "PROXY TCP4 1.2.3.4 5.6.7.8 80\r\n" . request()],
    ['v1 TCP4 with IPv6 addresses', "PROXY TCP4 ::1 ::2 80 81\r\n" . request()],
    ['v1 with a bad address', "PROXY TCP4 1.2.3.256 5.6.7.8 80 81\r\n" . request()],
    ['v1 without CRLF for 107 bytes', 'PROXY UNKNOWN ' . ('x' x 120) . "\r\n" . request()],
    ['v1 lower case', lc(proxy_v1('1.2.3.4', '5.6.7.8', 1, 2)) . request()],
    ['v2 version 3', V2_SIG . "\x31\x11\x00\x0c" . ("\x01" x 12) . request()],
    ['v2 UDP', V2_SIG . "\x21\x12\x00\x0c" . ("\x01" x 12) . request()],
    ['v2 too short for its addresses', V2_SIG . "\x21\x11\x00\x04" . ("\x01" x 4) . request()],
    ['garbage', "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" . request()],
) {
    my ($name, $bytes) = @$case;
    my $t0 = Time::HiRes::time();
    my (undef, $got, $how) = ask($port, $bytes);
    is $got, '', "$name: not a byte of answer";
    like $how, qr/\A(?:eof|reset)\z/, "$name: closed ($how)";
    cmp_ok Time::HiRes::time() - $t0, '<', 2, "$name: at once, not at the timeout";
}

# too slow: half a header, then nothing
my $slow = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port) or die $!;
syswrite $slow, 'PROXY TCP4 192.0.2.1 ';
my $t0 = Time::HiRes::time();
my ($got, $how) = read_until_close($slow, 20);
my $took = Time::HiRes::time() - $t0;
is $got, '', 'half a header: not a byte of answer (no 408)';
like $how, qr/\A(?:eof|reset)\z/, "half a header: closed ($how)";
cmp_ok $took, '>=', 2.5, sprintf('half a header: closed at --header-timeout (%.2f s)', $took);
cmp_ok $took, '<', 8, 'and not much later';

# silent: connected, nothing sent
my $silent = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port) or die $!;
($got, $how) = read_until_close($silent, 20);
is $got, '', 'nothing sent: not a byte of answer';
like $how, qr/\A(?:eof|reset)\z/, "nothing sent: closed ($how)";

my ($env) = ask($port, proxy_v2('192.0.2.5', '192.0.2.6', 7, 8) . request());
is $env && $env->{REMOTE_ADDR}, '192.0.2.5', 'a good connection is served';
done_testing;
