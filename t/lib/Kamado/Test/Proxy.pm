package Kamado::Test::Proxy;
use 5.024;
use strict;
use warnings;

# Helpers for the tests of running behind a proxy (t/http/proxy-*.t): an
# app that shows what it was told of the client, a server with a plain
# listener and a --proxy-protocol one, PROXY headers spelt out, and one
# request's answer read back as the app's variables.

use Exporter 'import';
use IO::Socket::IP;
use Socket qw(AF_INET AF_INET6 inet_pton);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(read_until_close parse_response);

our @EXPORT_OK = qw(ENV_APP KEYS start_proxied ask env_of request proxy_v1 proxy_v2 V2_SIG);

# what the app shows, one "KEY=VALUE" line each ("(none)" when absent)
use constant KEYS => qw(REMOTE_ADDR REMOTE_PORT psgi.url_scheme HTTPS SERVER_PORT SERVER_NAME
    HTTP_HOST kamado.peer_addr kamado.peer_port HTTP_X_FORWARDED_FOR HTTP_X_REAL_IP
    HTTP_X_FORWARDED_PROTO);

use constant ENV_APP => 'my @keys = qw(' . join(' ', KEYS) . ');
sub {
    my $env = shift;
    [200, ["Content-Type" => "text/plain"],
        [join "", map { "$_=" . ($env->{$_} // "(none)") . "\n" } @keys]];
}';

use constant V2_SIG => "\r\n\r\n\0\r\nQUIT\n";

# start_proxied(args => [...], app => SOURCE, ...): a server (the app
# above by default) listening on two loopback ports: ->port takes plain
# HTTP, ->{proxy_port} is --proxy-protocol. Both ports are the kernel's
# free choice, released just before kamado binds them.
sub start_proxied {
    my (%opt) = @_;
    my @socks = map {
        IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 1, ReuseAddr => 1)
            or die "Can't find a free port: $@"
    } 1, 2;
    my ($plain, $proxied) = map { $_->sockport } @socks;
    close $_ for @socks;
    my $server = start_server(app => ENV_APP, %opt, self_bind => 1, port => $plain,
        args => ['--listen', "127.0.0.1:$plain", '--listen', "127.0.0.1:$proxied",
                 '--proxy-protocol', "127.0.0.1:$proxied", ($opt{args} // [])->@*]);
    $server->{proxy_port} = $proxied;
    return $server;
}

# A GET with these fields (name => value pairs, in order) and
# Connection: close.
sub request {
    my (@fields) = @_;
    my $head = "GET /who HTTP/1.1\r\nHost: kamado.test\r\n";
    while (my ($k, $v) = splice @fields, 0, 2) { $head .= "$k: $v\r\n" }
    return "$head" . "Connection: close\r\n\r\n";
}

# ask($port, $bytes): sends the bytes on a new connection to
# 127.0.0.1:$port and reads until it closes: (the app's variables, or
# undef when no 200 came; the bytes read; how it ended, as
# read_until_close says).
sub ask {
    my ($port, $bytes) = @_;
    my $sock = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port)
        or die "Can't connect to 127.0.0.1:$port: $!";
    syswrite $sock, $bytes;
    my ($got, $how) = read_until_close($sock);
    return (env_of($got), $got, $how);
}

# The app's variables in a response, or undef unless it is a 200.
sub env_of {
    my ($bytes) = @_;
    my $res = parse_response($bytes) or return undef;
    return undef unless $res->{status} == 200;
    return { map { split /=/, $_, 2 } split /\n/, $res->{body} };
}

# "PROXY TCP4 SRC DST SPORT DPORT\r\n" (TCP6 when SRC has a colon)
sub proxy_v1 {
    my ($src, $dst, $sport, $dport) = @_;
    return 'PROXY ' . ($src =~ /:/ ? 'TCP6' : 'TCP4') . " $src $dst $sport $dport\r\n";
}

# A version 2 header: proxy_v2(SRC, DST, SPORT, DPORT, TLVS) for a PROXY
# command (TCP over IPv4, or IPv6 when SRC has a colon; TLVS raw bytes
# after the addresses), or proxy_v2('LOCAL').
sub proxy_v2 {
    my ($src, $dst, $sport, $dport, $tlvs) = @_;
    return V2_SIG . "\x20\x00\x00\x00" if $src eq 'LOCAL';
    my $v6 = $src =~ /:/;
    my $addrs = inet_pton($v6 ? AF_INET6 : AF_INET, $src) . inet_pton($v6 ? AF_INET6 : AF_INET, $dst)
        . pack('nn', $sport, $dport) . ($tlvs // '');
    return V2_SIG . "\x21" . ($v6 ? "\x21" : "\x11") . pack('n', length $addrs) . $addrs;
}

1;
