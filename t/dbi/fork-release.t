# Fork mode, MariaDB, both drivers: what a child leaves on the connection
# it borrowed from its zygote is undone as soon as the child ends, as a
# CGI process's exit ends its connection, not when the same script is
# next requested (which may be hours later). With one worker, a script
# requested twice (the second request runs on the zygote's connection)
# leaves a transaction open, dies in its transaction (RaiseError), runs
# LOCK TABLES, takes GET_LOCK, is stopped by --cgi-timeout with its
# transaction open, or leaves a process running in the background (which
# holds the pipe the zygote watches); then another script updates the same row and takes
# the same named lock at once, no transaction is left on the server, and
# the first script's next request runs on the same (reset) connection.
# The lock waits are made short, so that a lock left behind fails the
# test in seconds rather than hanging it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::MariaDB;
use Kamado::Test::DBICGI qw(serve sql);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/no output for \d+ s \(--cgi-timeout\): stopping it/);

my $db = Kamado::Test::MariaDB->start;
$db->sql('SET GLOBAL innodb_lock_wait_timeout = 3');
$db->sql('SET GLOBAL lock_wait_timeout = 3');

my $update = 'UPDATE t SET n = n + 1 WHERE id = 1';
my @cases = (
    ['a transaction left open', { ac => 0 }, $update],
    ['a script that dies in its transaction (RaiseError)', { ac => 0 }, $update, 'SELECT * FROM no_such_table'],
    ['LOCK TABLES', {}, 'LOCK TABLES t WRITE', $update],
    ['GET_LOCK', {}, q{SELECT GET_LOCK('kamado', 0)}],
    ['a transaction open when --cgi-timeout stops the script', { ac => 0, sleep => 30 }, $update],
);

for my $driver (Kamado::Test::MariaDB::drivers()) {
    subtest $driver => sub {
        $db->use_driver($driver);
        $db->sql('CREATE TABLE kamado.t (id INT PRIMARY KEY, n INT) ENGINE=InnoDB');
        $db->sql('INSERT INTO kamado.t VALUES (1, 0)');
        my $server = serve($db, mode => 'fork', args => ['--cgi-timeout', 2]);
        for my $case (@cases) {
            my ($name, $opt, @sql) = @$case;
            subtest $name => sub {
                # (the first request runs on the child's own connection,
                # which its exit closes; the second on the zygote's)
                my @runs = map { sql($server, $opt, @sql) } 1, 2;
                like $runs[1]{id}, qr/^\d+$/, 'the script ran twice' or diag $server->log;
                my $row = sql($server, { script => 'other.cgi' }, $update, q{SELECT 'updated'});
                is_deeply $row->{rows}, ['updated'], 'another script then updates the same row' or diag $row->{body};
                my $lock = sql($server, { script => 'other.cgi' }, q{SELECT GET_LOCK('kamado', 3), RELEASE_LOCK('kamado')});
                is_deeply $lock->{rows}, ['1,1'], '... and takes the same named lock' or diag $lock->{body};
                is_deeply $db->sql('SELECT COUNT(*) FROM information_schema.innodb_trx'), [[0]],
                    'no transaction is left open on the server';
                my $next = sql($server, { ac => $opt->{ac} // 1 }, 'SELECT 1');
                if ($opt->{sleep}) {
                    isnt $next->{id}, $runs[1]{id}, 'the connection of a stopped child is replaced';
                } else {
                    is $next->{id}, $runs[1]{id}, 'the first script runs on the same connection, reset';
                }
            };
        }
        unlike $server->log, qr/could not be reset|found dead/, 'no handle was replaced but the stopped one';
        $server->stop;

        # (a server of its own: --cgi-timeout would end the process left
        # behind, and the pipe it holds, in 2 s)
        $server = serve($db, mode => 'fork');
        subtest 'a transaction left open by a script that leaves a process running' => sub {
            my @runs = map { sql($server, { ac => 0, bg => $_ ? 30 : 0 }, $_ ? $update : 'SELECT 1') } 0 .. 2;
            # (the first on the child's own connection; the second borrows
            # the zygote's, the third too once the second child has gone)
            is $runs[2]{id}, $runs[1]{id}, 'the script ran twice on the zygote\'s connection' or diag $server->log;
            my $row = sql($server, { script => 'other.cgi' }, $update, q{SELECT 'updated'});
            is_deeply $row->{rows}, ['updated'], 'another script then updates the same row' or diag $row->{body};
            is_deeply $db->sql('SELECT COUNT(*) FROM information_schema.innodb_trx'), [[0]],
                'no transaction is left open on the server';
            is sql($server, { ac => 0 }, 'SELECT 1')->{id}, $runs[2]{id}, 'the script runs on the same connection, reset';
        };
        $server->stop;
    };
}

done_testing;
