# SQLite through Kamado::DBI: no session reset is known for it (PRAGMAs,
# ATTACH, functions and hooks registered on the handle), so its handle
# lasts one request: what a request left (an uncommitted insert, a
# temporary table, a PRAGMA) is gone for the next, and the database file
# is not locked by a kept handle between requests.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use DBI;
use Kamado::Test::DBICGI qw(serve sql sqlite_db);

my $dir = File::Temp::tempdir(CLEANUP => 1);
my $db = sqlite_db("$dir/test.db");
for my $mode (qw(registry perlrun)) {
    subtest $mode => sub {
        unlink "$dir/test.db";
        my $server = serve($db, mode => $mode);
        is sql($server, {}, 'CREATE TABLE t (n INT)', 'INSERT INTO t VALUES (1)')->{status}, 200, 'a table with a row'
            or diag $server->log;
        my $open = sql($server, { begin => 1 }, 'INSERT INTO t VALUES (2)', 'CREATE TEMP TABLE tmp (n INT)',
            'PRAGMA recursive_triggers = ON', 'PRAGMA recursive_triggers', 'SELECT COUNT(*) FROM t');
        is_deeply $open->{rows}, ['1', '2'], 'a request inserts without commit, makes a temporary table, sets a PRAGMA';
        my $next = sql($server, {}, 'SELECT COUNT(*) FROM t', 'PRAGMA recursive_triggers',
            q{SELECT COUNT(*) FROM sqlite_temp_master WHERE name = 'tmp'});
        is_deeply $next->{rows}, ['1', '0', '0'], 'the next request sees none of it';
        my $other = DBI->connect($db->dsn, '', '', { RaiseError => 1, PrintError => 0, AutoCommit => 1 });
        ok eval { $other->do('INSERT INTO t VALUES (3)'); 1 }, 'between requests the file is not locked' or diag $@;
        $other->disconnect;
        $server->stop;
    };
}

done_testing;
