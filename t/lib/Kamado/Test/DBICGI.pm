package Kamado::Test::DBICGI;
use 5.024;
use strict;
use warnings;

# Kamado serving t/dbi/cgi/ (sql.cgi: connects on each request, runs the
# SQL of its query string) against a test database, for the t/dbi tests.
#
#   my $server = serve($db, mode => 'registry', workers => 1, args => [...]);
#   my $r = sql($server, {ac => 0}, 'SELECT 1');   # { status, id, pid, rows => [...] }
#   put_script($root, 'seed.cgi', seed_script($db));  # seed 004's `our $dbh`
#   for my $case (databases()) { ... }   # MariaDB with each driver, PostgreSQL

use Exporter 'import';
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP ();

our @EXPORT_OK = qw(serve sql id_sql sqlite_db seed_script databases);

my $DIR = File::Spec->rel2abs('t/dbi/cgi');

# The databases a t/dbi case runs against, each [NAME, START]: MariaDB
# through DBD::MariaDB, then through DBD::mysql (one server, started by
# the first START, its database emptied for the second), and PostgreSQL
# (a server of its own). START returns the Kamado::Test::MariaDB or
# Kamado::Test::Pg object. (pg => 0: MariaDB only.)
#
#   for my $case (databases()) { my ($name, $start) = @$case; subtest $name => sub { my $db = $start->(); ... } }
sub databases {
    my (%opt) = @_;
    require Kamado::Test::MariaDB;
    require Kamado::Test::Pg;
    my $mariadb;
    return ((map { my $driver = $_; ["MariaDB, DBD::$driver", sub {
            ($mariadb //= Kamado::Test::MariaDB->start)->use_driver($driver) }] } Kamado::Test::MariaDB::drivers()),
        ($opt{pg} // 1 ? ['PostgreSQL', sub { Kamado::Test::Pg->start }] : ()));
}

# The SQL that names the server connection, per driver.
sub id_sql {
    my ($db) = @_;
    return ref($db) =~ /Pg/ ? 'SELECT pg_backend_pid()' : ref($db) =~ /MariaDB/ ? 'SELECT CONNECTION_ID()' : 'SELECT 0';
}

# An SQLite database file standing in for a server (dsn, user, password).
sub sqlite_db {
    my ($file) = @_;
    return bless { dsn => "DBI:SQLite:dbname=$file" }, 'Kamado::Test::DBICGI::SQLite';
}
sub Kamado::Test::DBICGI::SQLite::dsn      { $_[0]{dsn} }
sub Kamado::Test::DBICGI::SQLite::user     { '' }
sub Kamado::Test::DBICGI::SQLite::password { '' }

sub serve {
    my ($db, %opt) = @_;
    return start_server(no_app => 1, workers => $opt{workers} // 1, args => [
        '--cgi-bin', $DIR, '--cgi-mode', $opt{mode} // 'registry',
        '--cgi-env', 'KT_DSN=' . $db->dsn, '--cgi-env', 'KT_USER=' . $db->user,
        '--cgi-env', 'KT_PASS=' . $db->password, '--cgi-env', 'KT_ID_SQL=' . id_sql($db),
        ($opt{args} // [])->@*]);
}

# sql(SERVER, {OPTIONS}, SQL...): sql.cgi's answer; the option script =>
# 'other.cgi' asks the same of other.cgi, a second script.
sub sql {
    my ($server, $opt, @sql) = @_;
    my %opt = %$opt;
    my $script = delete $opt{script} // 'sql.cgi';
    my $query = join '&', (map { "$_=$opt{$_}" } sort keys %opt), map { 'q=' . _escape($_) } @sql;
    my $raw = raw_request($server, "GET /cgi-bin/$script?$query HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 30);
    my $res = Kamado::Test::HTTP::parse_response($raw) // { status => 0, body => '' };
    my ($head, @rows) = split /\n/, $res->{body} // '';
    my ($id, $pid, $ppid) = ($head // '') =~ /\Aid=(\S+) pid=(\d+)(?: ppid=(\d+))?\z/;
    return { status => $res->{status}, id => $id, pid => $pid, ppid => $ppid, rows => \@rows, body => $res->{body} };
}

# Seed 004's idiom, for the database DB: the handle in `our $dbh`,
# connected (with ATTR, Perl text; AutoCommit off by default) when it is
# undefined or does not answer ping; $id is its connection's id. BODY
# (Perl text) follows; by default the script prints $id.
sub seed_script {
    my ($db, %opt) = @_;
    my $conn = join ', ', map { "'$_'" } $db->dsn, $db->user, $db->password;
    my $attr = $opt{attr} // 'RaiseError => 1, PrintError => 0, AutoCommit => 0';
    my $id_sql = id_sql($db);
    return <<"CGI" . ($opt{body} // qq{print "Content-Type: text/plain\\n\\n\$id\\n";\n});
#!/usr/bin/perl
use strict;
use DBI;
our \$dbh;
if (!defined \$dbh or !\$dbh->ping) {
    \$dbh = DBI->connect($conn, { $attr });
}
my (\$id) = \$dbh->selectrow_array('$id_sql');
CGI
}

sub _escape { $_[0] =~ s/([^A-Za-z0-9_.-])/sprintf '%%%02X', ord $1/ger }

1;
__END__

=head1 NAME

Kamado::Test::DBICGI - a CGI script using DBI under Kamado, for t/dbi

=cut
