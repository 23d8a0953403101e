# --graceful-timeout: after TERM, a worker still busy with a request past
# the timeout is killed, the log names it, and kamado exits 0. A
# request that ends within the timeout is answered whole (term-in-flight.t).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test::HTTP qw(wait_for_file read_until_close stuck_server slurp);

my $server = stuck_server(workers => 1, args => ['--graceful-timeout', 1]);

my $c = $server->connect;
syswrite $c, "GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n";
ok wait_for_file($server->{started}), 'the request is in the app';
my $t0 = Time::HiRes::time();
kill TERM => $server->pid;
is $server->wait_exit(15), 0, 'kamado exits with status 0';
my $took = Time::HiRes::time() - $t0;
cmp_ok $took, '>=', 0.9, sprintf 'not before the graceful timeout (%.2f s)', $took;
cmp_ok $took, '<', 5, 'but soon after it, not when the app would have finished (60 s)';
my ($got, $how) = read_until_close($c, 5);
is $got, '', 'the stuck request got no answer';
ok $how eq 'eof' || $how eq 'reset', "its connection was closed ($how)";
my $worker = slurp($server->{started});
like $server->log, qr/graceful timeout \(1 s\): killing worker \Q$worker\E$/m, 'the log names the killed worker';
ok !kill(0, $worker), 'the worker is gone';
done_testing;
