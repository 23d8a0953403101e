# nginx in front of Kamado over TCP with upstream keep-alive, configured
# by examples/nginx.conf (proxy_pass to its kamado_tcp upstream): twenty
# requests, each on a new client connection to nginx, reach Kamado over
# far fewer connections (Kamado sees the same peer port serve several),
# in HTTP/1.1 with no Connection: close; a 3 MB upload arrives whole.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use Kamado::Test qw(start_server read_response);
use Kamado::Test::Nginx qw(start_nginx);

my $app = <<'APP';
use Digest::MD5;
sub {
    my ($env) = @_;
    my $md5 = Digest::MD5->new;
    my $n = 0;
    while ((my $got = $env->{'psgi.input'}->read(my $buf, 65536)) > 0) { $md5->add($buf); $n += $got }
    return [200, ['Content-Type' => 'text/plain'],
        [join ' ', $env->{REMOTE_PORT}, $env->{SERVER_PROTOCOL}, $env->{HTTP_CONNECTION} // '-', $n, $md5->hexdigest]];
}
APP
my $server = start_server(app => $app, workers => 2);
my $nginx = start_nginx(tcp => $server->port);

my (%ports, @protocols);
for (1 .. 20) {
    my $c = $nginx->connect;
    syswrite $c, "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n";
    my $res = read_response($c);
    my ($port, $proto, $connection) = split ' ', $res ? $res->{body} : '';
    $ports{ $port // 'none' }++;
    push @protocols, "$proto $connection";
}
ok !$ports{none}, 'twenty answers through nginx' or diag $nginx->error_log;
cmp_ok scalar(keys %ports), '<=', 5, 'over at most 5 upstream connections: nginx keeps them alive'
    or diag explain \%ports;
ok +(grep { $_ > 1 } values %ports), 'one connection served several requests';
is_deeply [sort { $a cmp $b } keys %{{ map { ($_ => 1) } @protocols }}], ['HTTP/1.1 -'],
    'HTTP/1.1 without a Connection header (proxy_http_version 1.1, Connection "")';

my $body = join '', map { pack 'N', int rand 2**32 } 1 .. 3 * 1024 * 1024 / 4;
my $c = $nginx->connect;
syswrite $c, "POST / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nContent-Length: " . length($body) . "\r\n\r\n";
my $off = 0;
while ($off < length $body) {
    my $n = syswrite $c, $body, 65536, $off;
    defined $n or last;
    $off += $n;
}
my $res = read_response($c, timeout => 30);
my (undef, undef, undef, $n, $md5) = split ' ', $res ? $res->{body} : '';
is "$n $md5", length($body) . ' ' . md5_hex($body), 'a 3 MB upload arrives whole (length and MD5)';

is $nginx->stop, 0, 'nginx stops';
is $server->stop, 0, 'Kamado stops';
done_testing;
