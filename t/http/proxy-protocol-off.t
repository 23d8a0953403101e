# A listener without --proxy-protocol takes a PROXY header for what it
# is there: a malformed request line, answered 400 and closed; the
# listener of the same server that has the flag serves it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::Proxy qw(start_proxied ask request proxy_v1 proxy_v2);

my $server = start_proxied();
for my $case (['v1', proxy_v1('192.0.2.1', '192.0.2.2', 1, 2)], ['v2', proxy_v2('192.0.2.1', '192.0.2.2', 1, 2)]) {
    my ($name, $header) = @$case;
    my (undef, $got, $how) = ask($server->port, $header . request());
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 400 Bad Request', "$name on the plain listener: 400";
    is $res && $res->{headers}{connection}, 'close', "$name on the plain listener: Connection: close";
    like $how, qr/\A(?:eof|reset)\z/, "$name on the plain listener: closed";
    my ($env) = ask($server->{proxy_port}, $header . request());
    is $env && $env->{REMOTE_ADDR}, '192.0.2.1', "$name on the --proxy-protocol listener: served";
}
done_testing;
