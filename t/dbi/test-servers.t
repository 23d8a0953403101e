# The tests' private database servers (Kamado::Test::MariaDB,
# Kamado::Test::Pg) start, take the test user's password over TCP, show
# its connections, kill one, and come back from a restart on the same
# port with the data kept.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test ();
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;

# (a server of its own for each: the last case is its object's going)
my @databases = ((map { my $driver = $_; ["MariaDB, DBD::$driver", sub { Kamado::Test::MariaDB->start->use_driver($driver) }] }
    Kamado::Test::MariaDB::drivers()), ['PostgreSQL', sub { Kamado::Test::Pg->start }]);
for my $case (@databases) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        my $db = $start->();
        my $id_sql = ref($db) =~ /Pg/ ? 'SELECT pg_backend_pid()' : 'SELECT CONNECTION_ID()';
        ok !eval { DBI->connect($db->dsn, $db->user, 'wrong', { PrintError => 0, RaiseError => 1 }) },
            'a wrong password is refused';
        my $dbh = DBI->connect($db->dsn, $db->user, $db->password, { PrintError => 0, RaiseError => 1 });
        my ($id) = $dbh->selectrow_array($id_sql);
        is_deeply [$db->connections], [$id], 'the test user has that one connection';
        $dbh->do('CREATE TABLE kept (n INT)');
        $dbh->do('INSERT INTO kept VALUES (7)');
        $db->kill_connection($id);
        ok !eval { $dbh->do('SELECT 1') }, 'a killed connection fails';
        my $port = $db->port;
        my $old = $db->pid;
        $db->restart;
        isnt $db->pid, $old, 'restarted: a new server process';
        ok !kill(0, $old), 'the old one has gone';
        is $db->port, $port, 'on the same port';
        $dbh = DBI->connect($db->dsn, $db->user, $db->password, { PrintError => 0, RaiseError => 1 });
        is $dbh->selectrow_array('SELECT n FROM kept'), 7, 'the data is kept';
        $dbh->disconnect;
        my $pid = $db->pid;
        undef $db;
        ok !kill(0, $pid), 'the server is stopped when the object goes';
    };
}

done_testing;
