# Kamado's own options pass through plackup: --workers 2 runs two workers,
# --max-reqs-per-child 2 replaces each after two requests,
# --keepalive-timeout and --max-keepalive-reqs shape a connection.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response wait_until);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $port = free_port();
my $server = start_plackup(port => $port,
    args => ['--port', $port, '-E', 'deployment', '--workers', 2, '--max-reqs-per-child', 2,
             '--max_keepalive_reqs', 3],
    app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');
like $server->log, qr/accepting connections at \S+ with 2 workers/, '--workers 2 reached Kamado';
wait_until { $server->workers == 2 } 'two worker processes';

my $c = $server->connect;
my @got;
for (1 .. 4) {
    print $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    push @got, read_response($c) // last;
}
is scalar(@got), 3, '--max_keepalive_reqs 3 (underscores): three answers on one connection';
is $got[2]{headers}{connection}, 'close', 'the third closes it';

my %served;
for (1 .. 6) {
    my $c = $server->send_get('/');
    my $res = read_response($c);
    $served{ $res->{body} }++ if $res;
}
is eval { my $n = 0; $n += $_ for values %served; $n }, 6, 'six answers';
cmp_ok scalar(keys %served), '>=', 3, 'from three workers or more: each was replaced';
is scalar(grep { $_ > 2 } values %served), 0, '--max-reqs-per-child 2: no worker serves more than two'
    or diag explain \%served;
is $server->stop, 0, 'TERM stops plackup cleanly';
done_testing;
