# --no-preload with an app that cannot be loaded: each worker logs why and
# exits; the generation replaces them after a doubling pause and, after five
# failures in a row, gives up and exits 1 instead of forking for ever. An
# app that loads in some workers resets the count (covered by every other
# --no-preload test staying up).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/giving up: the app failed to load|worker can't load the app/);

my $t0 = Time::HiRes::time();
my $server = start_server(workers => 2, args => ['--no-preload'], no_wait => 1, app => <<'APP');
die "this app is broken\n";
APP
my $status = $server->wait_exit(20);
my $took = Time::HiRes::time() - $t0;
is $status >> 8, 1, 'kamado exits with status 1';
cmp_ok $took, '<', 15, sprintf 'after a bounded time (%.1f s)', $took;
my $log = $server->log;
my @fails = $log =~ /worker can't load the app: .*: this app is broken$/mg;
cmp_ok scalar @fails, '>=', 5, scalar(@fails) . ' workers said why they failed';
cmp_ok scalar @fails, '<=', 6, 'no more than a round past the fifth';
like $log, qr/giving up: the app failed to load in \d+ workers in a row/, 'the generation says it gives up';
unlike $log, qr/accepting connections/, 'and never said it accepted connections: no worker ever served';
done_testing;
