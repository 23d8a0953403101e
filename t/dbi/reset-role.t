# MariaDB, registry and fork modes, both drivers: the role a request
# sets (SET ROLE) is gone for the next request on the same kept
# connection, which has the role it had at login again: none, or the
# user's default role (the server's connection reset keeps the current
# role). Session sql_log_bin, which the reset does put back, is checked
# beside it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::MariaDB;
use Kamado::Test::DBICGI qw(serve sql);

my $db = Kamado::Test::MariaDB->start;
$db->sql('CREATE ROLE kamado_admin');
$db->sql('GRANT SELECT ON mysql.* TO kamado_admin');
$db->sql(q{GRANT kamado_admin TO 'kamado'@'127.0.0.1'});
$db->sql(q{GRANT BINLOG ADMIN ON *.* TO 'kamado'@'127.0.0.1'});

for my $driver (Kamado::Test::MariaDB::drivers()) {
    for my $mode (qw(registry fork)) {
        subtest "$driver, $mode mode" => sub {
            $db->use_driver($driver);
            $db->sql(q{SET DEFAULT ROLE NONE FOR 'kamado'@'127.0.0.1'});
            my $server = serve($db, mode => $mode);
            # (in fork mode the first request runs on the child's own
            # connection; the zygote's is lent from the second on)
            my $warm = sql($server, {}, 'SELECT CURRENT_ROLE()');
            is_deeply $warm->{rows}, ['NULL'], 'the user has no role at login' or diag $server->log;
            my $set = sql($server, {}, 'SET ROLE kamado_admin', 'SET sql_log_bin = 0',
                'SELECT CURRENT_ROLE(), @@sql_log_bin');
            is_deeply $set->{rows}, ['kamado_admin,0'], 'a request sets a role and sql_log_bin' or diag $set->{body};
            my $next = sql($server, {}, 'SELECT CURRENT_ROLE(), @@sql_log_bin');
            is $next->{id}, $set->{id}, 'the next request runs on the same connection';
            is_deeply $next->{rows}, ['NULL,1'], '... without the role, with sql_log_bin back';
            $server->stop;

            $db->sql(q{SET DEFAULT ROLE kamado_admin FOR 'kamado'@'127.0.0.1'});
            $server = serve($db, mode => $mode);
            $warm = sql($server, {}, 'SELECT CURRENT_ROLE()');
            is_deeply $warm->{rows}, ['kamado_admin'], 'with a default role, the user has it at login';
            $set = sql($server, {}, 'SET ROLE NONE', 'SELECT CURRENT_ROLE()');
            is_deeply $set->{rows}, ['NULL'], 'a request sets none';
            $next = sql($server, {}, 'SELECT CURRENT_ROLE()');
            is $next->{id}, $set->{id}, 'the next request runs on the same connection';
            is_deeply $next->{rows}, ['kamado_admin'], '... with the default role again';
            unlike $server->log, qr/could not be reset|found dead|did not answer/, 'no handle was replaced';
            $server->stop;
        };
    }
}

done_testing;
