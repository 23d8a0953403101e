# Started as root without --user: the ready line says the app runs as root, and
# how to drop it; the server still serves.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

plan skip_all => 'needs root' if $>;
my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], [$>]] }');
like $server->log, qr{^\S+ \[warn\] supervisor \d+: accepting connections at .*; running as root: .*--user}m, 'a warning naming --user, on the ready line';
my $res = read_response($server->send_get('/'));
is $res && $res->{body}, 0, 'the app runs as root';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
