# Session state a request sets on a kept connection is gone for the next
# request, which runs on the same server connection: MariaDB's user
# variables, time_zone and sql_mode, a temporary table, a GET_LOCK lock,
# a USE of another database; PostgreSQL's search_path and TimeZone, a
# temporary table, an advisory lock, a prepared statement.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql);

my $mariadb = Kamado::Test::MariaDB->start;
$mariadb->sql('CREATE DATABASE other');
$mariadb->sql(q{GRANT ALL ON other.* TO 'kamado'@'127.0.0.1'});
for my $driver (Kamado::Test::MariaDB::drivers()) {
    subtest "MariaDB, DBD::$driver" => sub {
        my $db = $mariadb->use_driver($driver);
        my $server = serve($db, mode => 'registry');
        my $set = sql($server, {}, q{SET @x = 42, time_zone = '+03:00', sql_mode = 'ANSI_QUOTES'},
            'CREATE TEMPORARY TABLE tmp (n INT)', q{SELECT GET_LOCK('kamado-test', 0)}, 'USE other',
            'SELECT @x, @@time_zone, @@sql_mode, DATABASE()', q{SELECT IS_USED_LOCK('kamado-test') = CONNECTION_ID()});
        is_deeply $set->{rows}, ['1', '42,+03:00,ANSI_QUOTES,other', '1'], 'a request sets session state and takes a named lock'
            or diag $server->log;
        my $next = sql($server, {}, q{SELECT @x, @@time_zone, @@sql_mode = @@GLOBAL.sql_mode, DATABASE()},
            q{SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'tmp'});
        is $next->{id}, $set->{id}, 'the next request runs on the same connection';
        is_deeply $next->{rows}, ['NULL,SYSTEM,1,kamado', '0'],
            'without the user variable, time zone, sql_mode or database of the last';
        my $tmp = sql($server, {}, 'CREATE TEMPORARY TABLE tmp (n INT)');
        is $tmp->{status}, 200, 'the temporary table is gone: it can be made again';
        is_deeply $db->sql(q{SELECT IS_USED_LOCK('kamado-test')}), [[undef]], 'the named lock was released';
        unlike $server->log, qr/could not be reset|found dead/, 'no handle was replaced';
        $server->stop;
    };
}

subtest PostgreSQL => sub {
    my $db = Kamado::Test::Pg->start;
    my $server = serve($db, mode => 'registry');
    my $set = sql($server, {}, 'CREATE SCHEMA elsewhere', q{SET search_path = elsewhere}, q{SET TimeZone = 'Asia/Tokyo'},
        'CREATE TEMPORARY TABLE tmp (n INT)', 'SELECT pg_advisory_lock(4242)', 'PREPARE kept AS SELECT 1',
        'SHOW search_path', 'SHOW TimeZone',
        q{SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()});
    is_deeply $set->{rows}, ['', 'elsewhere', 'Asia/Tokyo', '1'], 'a request sets session state and takes an advisory lock'
        or diag $server->log;
    my ($zone) = $db->sql('SHOW TimeZone')->[0]->@*;
    isnt $zone, 'Asia/Tokyo', "(the server's own time zone is $zone)";
    my $next = sql($server, {}, 'SHOW search_path', 'SHOW TimeZone',
        q{SELECT COUNT(*) FROM pg_prepared_statements WHERE name = 'kept'});
    is $next->{id}, $set->{id}, 'the next request runs on the same connection';
    is_deeply $next->{rows}, ['"$user", public', $zone, '0'], 'search_path and TimeZone back, no prepared statement';
    is sql($server, {}, 'CREATE TEMPORARY TABLE tmp (n INT)')->{status}, 200, 'the temporary table is gone';
    is_deeply $db->sql(q{SELECT pid FROM pg_locks WHERE locktype = 'advisory'}), [], 'the advisory lock was released';
    unlike $server->log, qr/could not be reset|found dead/, 'no handle was replaced';
};

done_testing;
