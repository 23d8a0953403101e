# The end-of-request reset of a connection the server has closed in the
# meantime (killed, or the server restarted while the response was being
# sent) gives up at once: the handle is dropped and the next connect
# makes a new connection. Kamado::DBI in the test's own process.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test ();
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(databases);
use Kamado::DBI;

Kamado::DBI->enable(ping_interval => 60);
require Kamado::Log;
Kamado::Log->set_level('warn');    # (the replacement's info line)
for my $case (databases()) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        my $db = $start->();
        my $id_sql = ref($db) =~ /Pg/ ? 'SELECT pg_backend_pid()' : 'SELECT CONNECTION_ID()';
        my $connect = sub { DBI->connect($db->dsn, $db->user, $db->password, { RaiseError => 1, PrintError => 0 }) };
        my $dbh = $connect->();
        my ($id) = $dbh->selectrow_array($id_sql);
        $db->kill_connection($id);
        Kamado::Test::eventually(sub { !grep { $_ == $id } $db->connections }) or die 'not killed';
        my $t = Time::HiRes::time();
        my $ok = eval {
            local $SIG{ALRM} = sub { die "timed out\n" };
            alarm 10;
            Kamado::DBI::end_request();
            alarm 0;
            1;
        };
        ok $ok, 'the reset of a closed connection returns' or diag $@;
        cmp_ok Time::HiRes::time() - $t, '<', 2, 'at once';
        my ($new) = $connect->()->selectrow_array($id_sql);
        isnt $new, $id, 'the next connect makes a new connection';
        Kamado::DBI::end_request();
    };
}

done_testing;
