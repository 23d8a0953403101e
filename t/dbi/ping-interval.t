# --dbi-ping-interval: a kept handle idle for that long is pinged before
# it is handed out again, one used more recently is not (a connection the
# server closed is seen without a ping: t/dbi/reuse.t). The pings are
# counted in PostgreSQL's statement log (DBD::Pg's ping is a statement).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql);

my $db = Kamado::Test::Pg->start;
$db->sql(q{ALTER SYSTEM SET log_statement = 'all'});
$db->sql('SELECT pg_reload_conf()');
Kamado::Test::eventually(sub { $db->sql('SHOW log_statement')->[0][0] eq 'all' });
sub pings { scalar(() = $db->log =~ /DBD::Pg ping test/g) }

my $server = serve($db, mode => 'registry', args => ['--dbi-ping-interval', 0]);
sql($server, {}, 'SELECT 1');
my $before = pings();
sql($server, {}, 'SELECT 1') for 1 .. 3;
is pings() - $before, 3, '--dbi-ping-interval 0: a ping on every reuse, as Apache::DBI';
$server->stop;

$server = serve($db, mode => 'registry', args => ['--dbi-ping-interval', 3600]);
sql($server, {}, 'SELECT 1');
$before = pings();
my @ids = map { sql($server, {}, 'SELECT 1')->{id} } 1 .. 3;
is pings() - $before, 0, 'a long interval: no ping for a handle used a moment ago';
is scalar(keys %{{ map { $_ => 1 } @ids }}), 1, '(the same connection each time)';
$server->stop;

$server = serve($db, mode => 'registry', args => ['--dbi-ping-interval', 2]);
sql($server, {}, 'SELECT 1');
$before = pings();
Time::HiRes::sleep(2.5);
sql($server, {}, 'SELECT 1');
is pings() - $before, 1, 'idle past the interval: pinged';
sql($server, {}, 'SELECT 1');
is pings() - $before, 1, 'used again at once: not pinged';
$server->stop;

done_testing;
