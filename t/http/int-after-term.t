# INT while TERM's drain waits for a request stuck in the app: the drain
# ends at once (the request is cut off, its connection closes without an
# answer) and the server exits 0, not after --graceful-timeout.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(eventually);
use Kamado::Test::HTTP qw(wait_for_file read_until_close stuck_server slurp);

my $server = stuck_server(workers => 1, args => ['--graceful-timeout', 20]);

my $c = $server->connect;
syswrite $c, "GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n";
ok wait_for_file($server->{started}), 'a request is in the app';
kill TERM => $server->pid;
# (a zombie has exited)
sub exited { (slurp('/proc/' . $server->pid . '/stat') // '') !~ /^\d+ \(.*\) [^Z]/s }
ok !eventually(\&exited, 1), 'TERM: still draining 1 s later, the request in the app';
my $t0 = Time::HiRes::time();
kill INT => $server->pid;
is $server->wait_exit(15), 0, 'INT: the server exits with status 0';
my $took = Time::HiRes::time() - $t0;
cmp_ok $took, '<', 3, sprintf 'at once (%.2f s), not after the 20 s graceful timeout', $took;
my ($got, $how) = read_until_close($c, 5);
is $got, '', 'the request in progress got no answer';
ok $how eq 'eof' || $how eq 'reset', "its connection was closed ($how)";
done_testing;
