# plackup -s Kamado serves with Kamado's options (it finds the socket the
# way systemd passes it, like the kamado command).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $plackup = `sh -c 'command -v plackup'`;
chomp $plackup;
plan skip_all => 'plackup is not installed' unless $plackup;

my $server = start_server(
    command => [$plackup, '-s', 'Kamado', '-E', 'deployment'],
    workers => 2,
    args    => ['--keepalive-timeout', 5],
    app     => 'sub { [200, ["Content-Type" => "text/plain"], ["$ENV{PLACK_ENV} $$"]] }',
);
my %pids;
my $c = $server->connect;
for (1 .. 6) {
    print $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    is $res->{status}, 200, "request $_ over one keep-alive connection";
    my ($env, $pid) = split ' ', $res->{body};
    is $env, 'deployment', 'PLACK_ENV from -E';
    $pids{$pid}++;
}
is scalar(keys %pids), 1, 'a keep-alive connection stays with its worker';
is $server->stop, 0, 'TERM stops plackup cleanly';
like $server->log, qr/accepting connections at .* with 2 workers/, '--workers reached Kamado';
done_testing;
