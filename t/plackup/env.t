# plackup -s Kamado -E deployment: PLACK_ENV reaches the app, and plackup
# adds none of its development middleware (no access log on STDERR);
# without -E, plackup's default, development.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

for my $case ([['-E', 'deployment'], 'deployment'], [[], 'development']) {
    my ($args, $want) = @$case;
    my $port = free_port();
    my $server = start_plackup(port => $port, args => ['--port', $port, @$args],
        app => 'sub { [200, ["Content-Type" => "text/plain"], [$ENV{PLACK_ENV}]] }');
    my $c = $server->connect;
    print $c "GET /hit HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{body}, $want, (@$args ? "@$args" : 'no -E') . ": PLACK_ENV is $want in the app";
    is $server->stop, 0, 'TERM stops plackup cleanly';
    if ($want eq 'deployment') {
        unlike $server->log, qr{"GET /hit}, 'no access log middleware';
    } else {
        like $server->log, qr{"GET /hit HTTP/1.1" 200}, "plackup's access log middleware";
    }
}
done_testing;
