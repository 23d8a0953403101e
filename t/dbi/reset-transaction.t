# What a request leaves open on a kept handle is undone before the next
# one (Kamado::DBI::Reset), on the same server connection: an insert in a
# transaction begun with begin_work, one made with AutoCommit off, and
# one after a BEGIN sent as SQL are all rolled back (a handle connected
# with AutoCommit off is a connection of its own); the attributes the
# script changed (AutoCommit, FetchHashKeyName) are back as a new handle
# has them.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql databases);

for my $case (databases()) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        my $db = $start->();
        my $server = serve($db, mode => 'registry');
        my $setup = sql($server, {}, 'CREATE TABLE t (n INT)', 'INSERT INTO t VALUES (1)');
        is $setup->{status}, 200, 'a table with one row' or diag $server->log;
        my $id = $setup->{id};

        my $open = sql($server, { begin => 1 }, 'INSERT INTO t VALUES (2)', 'SELECT COUNT(*) FROM t');
        is_deeply $open->{rows}, [2], 'begin_work, an insert, no commit: the request sees its row';
        my $next = sql($server, {}, 'SELECT COUNT(*) FROM t');
        is_deeply $next->{rows}, [1], 'the next request does not: rolled back';
        is $next->{id}, $id, 'on the same connection';

        my $ac0 = sql($server, { ac => 0 }, 'INSERT INTO t VALUES (3)')->{id};
        isnt $ac0, $id, 'AutoCommit off at connect: a connection of its own (it is part of the key)';
        $next = sql($server, { ac => 0 }, 'SELECT COUNT(*) FROM t');
        is_deeply $next->{rows}, [1], 'AutoCommit off, an insert, no commit: the next such request sees nothing of it';
        is $next->{id}, $ac0, 'on that same connection';

        sql($server, {}, 'BEGIN', 'INSERT INTO t VALUES (4)');
        $next = sql($server, {}, 'SELECT COUNT(*) FROM t');
        is_deeply $next->{rows}, [1], 'a BEGIN sent as SQL is rolled back too';
        is $next->{id}, $id, 'on the same connection';

        sql($server, { set => 'AutoCommit:0' }, 'INSERT INTO t VALUES (5)');
        $next = sql($server, {}, 'SELECT COUNT(*) FROM t');
        is_deeply $next->{rows}, [1], 'AutoCommit turned off after connect: rolled back';
        is_deeply sql($server, {}, 'INSERT INTO t VALUES (6)')->{rows}, [], 'an insert with AutoCommit as connected';
        is_deeply sql($server, { begin => 1 }, 'SELECT COUNT(*) FROM t')->{rows}, [2],
            '... is committed: AutoCommit was back on';

        sql($server, { set => 'FetchHashKeyName:NAME_uc' }, 'SELECT 1');
        my $r = sql($server, {}, 'SELECT 1');
        is $r->{status}, 200, 'a request after one that changed FetchHashKeyName';
        is $r->{id}, $id, 'still the one connection';
        is_deeply [$db->connections], [sort { $a <=> $b } $id, $ac0], 'and no other was opened';
        unlike $server->log, qr/could not be reset|found dead/, 'no handle was replaced';
        $server->stop;
    };
}

done_testing;
