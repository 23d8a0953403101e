# Fork mode with MariaDB: a child that used DBI leaves without perl's
# global destruction (Kamado::CGI::Process::Zygote's quiet exit) only once nothing
# a destructor does can be missed: a connection the child made itself is
# closed as its destructor would close it (the server counts no aborted
# client, and it is gone), the connection lent by the zygote stays open
# for the next child, and an object of the script with a DESTROY of its
# own still sees it called.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::MariaDB;

my $mariadb = Kamado::Test::MariaDB->start;
for my $driver (Kamado::Test::MariaDB::drivers()) {
    subtest "DBD::$driver" => sub {
        my $db = $mariadb->use_driver($driver);
        my $root = File::Temp::tempdir(CLEANUP => 1);
        my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'fork']);
        my $conn = join ', ', map { "'$_'" } $db->dsn, $db->user, $db->password;
        my $witness = "$root/destroyed";

        # (an attribute that is a reference: a connection of the child's own,
        # never lent)
        put_script($root, 'own.cgi', <<"CGI");
#!/usr/bin/perl
use strict;
use DBI;
my \$lent = DBI->connect($conn, { RaiseError => 1, AutoCommit => 1 });
my \$own = DBI->connect($conn, { RaiseError => 1, AutoCommit => 1, private_kamado_test => [1] });
my (\$a) = \$lent->selectrow_array('SELECT CONNECTION_ID()');
my (\$b) = \$own->selectrow_array('SELECT CONNECTION_ID()');
print "Content-Type: text/plain\\n\\n\$a \$b\\n";
CGI
        put_script($root, 'witness.cgi', <<"CGI");
#!/usr/bin/perl
use strict;
use DBI;
package Witness { sub DESTROY { open my \$fh, '>>', '$witness' or die; print \$fh "destroyed\\n" } }
our \$w = bless {}, 'Witness';
my \$dbh = DBI->connect($conn, { RaiseError => 1, AutoCommit => 1 });
my (\$one) = \$dbh->selectrow_array('SELECT 1');
print "Content-Type: text/plain\\n\\n\$one\\n";
CGI

        my $status = sub { $db->sql(qq{SHOW GLOBAL STATUS LIKE '$_[0]'})->[0][1] };

        my $aborted = $status->('Aborted_clients');
        my (%lent, %own);
        for (1 .. 5) {
            my $res = get_script($server, 'own.cgi');
            my ($a, $b) = $res->{body} =~ /^(\d+) (\d+)$/ or diag "$res->{status} $res->{body}";
            $lent{$a // ''}++;
            $own{$b // ''}++;
        }
        is scalar(grep { /^\d+$/ } keys %own), 5, 'five children, five connections of their own';
        my %open = map { $_ => 1 } $db->connections;
        is scalar(grep { $open{$_} } keys %own), 0, 'each closed when its child ended';
        is $status->('Aborted_clients'), $aborted, '... properly: the server counts no aborted client';
        ok scalar(grep { $open{$_} } keys %lent), 'the connection lent by the zygote is still open';

        is get_script($server, 'witness.cgi')->{body}, "1\n", 'a script with an object of its own answers';
        is get_script($server, 'witness.cgi')->{body}, "1\n", 'twice';
        my $seen = do { local $/; open my $fh, '<', $witness or die "$witness: $!"; <$fh> };
        is $seen, "destroyed\n" x 2, "the object's DESTROY ran in each child";
        is $server->stop, 0, 'TERM: exit 0';
    };
}
done_testing;
