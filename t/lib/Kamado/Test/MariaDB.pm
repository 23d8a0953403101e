package Kamado::Test::MariaDB;
use 5.024;
use strict;
use warnings;

# A private MariaDB server for a test file: a data directory made by
# mariadb-install-db under a temporary directory, mariadbd on a free
# loopback port (and a unix socket there), a database and a user with a
# password for the code under test, root over the socket for the test's
# own admin SQL. Stopped by PID when the object goes (or the test ends).
#
#   my $db = Kamado::Test::MariaDB->start;
#   DBI->connect($db->dsn, $db->user, $db->password);
#   for my $driver (Kamado::Test::MariaDB::drivers()) { $db->use_driver($driver); ... }
#   $db->sql('KILL CONNECTION ?', $id);   $db->restart;

use DBI;
use File::Temp ();
use POSIX ();
use Kamado::Test::DB::Server qw(free_port spawn wait_for run_as);
our @ISA = ('Kamado::Test::DB::Server');

use constant STOP_SIGNAL => 'TERM';

# the smallest InnoDB that starts: given to the install and to each start
my @INNODB = qw(--innodb-log-file-size=4M --innodb-buffer-pool-size=8M
    --innodb-data-file-path=ibdata1:4M:autoextend --innodb-flush-log-at-trx-commit=0);

sub _bin {
    my ($name) = @_;
    for (split(/:/, $ENV{PATH} // ''), '/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin') {
        return "$_/$name" if -x "$_/$name";
    }
    die "$name is not installed (dev/deps installs mariadb-server)\n";
}

sub start {
    my ($class) = @_;
    my $tmp = File::Temp->newdir('kamado-mariadb-XXXXXX', TMPDIR => 1);
    my $self = bless { tmp => $tmp, dir => "$tmp", user => 'kamado', password => 'kamado-pw', database => 'kamado' },
        $class;
    my ($uid, $gid) = run_as();
    @$self{qw(uid gid)} = ($uid, $gid);
    # (as root, mariadbd needs --user; it then keeps root's identity)
    $self->{as_user} = $> == 0 ? ['--user=root'] : [];
    my $log = "$self->{dir}/install.log";
    # (a temporary directory of its own: a mariadbd starting removes the
    # #sql* files it finds there, the tables of another test's install)
    mkdir "$self->{dir}/tmp" or die "mkdir $self->{dir}/tmp: $!\n";
    system(join(' ', map { quotemeta } _bin('mariadb-install-db'), '--no-defaults', "--datadir=$self->{dir}/data",
        @INNODB, '--auth-root-authentication-method=normal', '--skip-test-db', $self->{as_user}->@*,
        "--tmpdir=$self->{dir}/tmp") . " >$log 2>&1") == 0
        or die "mariadb-install-db failed:\n" . Kamado::Test::DB::Server::_slurp($log);
    $self->_start;
    my $dbh = $self->admin;
    $dbh->do("CREATE DATABASE $self->{database}");
    for my $host ('127.0.0.1', 'localhost') {
        $dbh->do("CREATE USER '$self->{user}'\@'$host' IDENTIFIED BY '$self->{password}'");
        $dbh->do("GRANT ALL ON $self->{database}.* TO '$self->{user}'\@'$host'");
    }
    return $self;
}

# mariadbd on a free port, waited for by connecting; a port taken meanwhile
# by another process is retried on another.
sub _start {
    my ($self) = @_;
    for my $try (1 .. 5) {
        $self->{port} //= free_port();
        my $log = "$self->{dir}/server.log";
        my $pid = spawn({ log => $log },
            _bin('mariadbd'), '--no-defaults', "--datadir=$self->{dir}/data", @INNODB, $self->{as_user}->@*,
            "--socket=$self->{dir}/sock", "--port=$self->{port}", '--bind-address=127.0.0.1', "--tmpdir=$self->{dir}/tmp",
            "--pid-file=$self->{dir}/pid", '--skip-name-resolve', '--skip-log-bin', '--max-connections=200',
            '--skip-host-cache', "--log-error=$log");
        if (wait_for($pid, sub { $self->_probe }, $log)) {
            $self->{pid} = $pid;
            return;
        }
        my $text = Kamado::Test::DB::Server::_slurp($log);
        die "mariadbd did not start:\n$text" unless $text =~ /Address already in use/;
        delete $self->{port};
    }
    die "mariadbd: no free port after 5 tries\n";
}

sub _probe {
    my ($self) = @_;
    return -S "$self->{dir}/sock" && eval {
        DBI->connect("DBI:MariaDB:mariadb_socket=$self->{dir}/sock", 'root', '', { PrintError => 0, RaiseError => 1 })
    };
}

sub _connect_admin {
    my ($self) = @_;
    return DBI->connect("DBI:MariaDB:database=mysql;mariadb_socket=$self->{dir}/sock", 'root', '',
        { PrintError => 0, RaiseError => 1, AutoCommit => 1 });
}

# The drivers the code under test reaches MariaDB with: DBD::MariaDB, and
# DBD::mysql (seed 004's scripts', and most legacy code's). Each t/dbi
# case against MariaDB runs with both (Kamado::Test::DBICGI::databases).
sub drivers { qw(MariaDB mysql) }

sub driver { $_[0]{driver} // 'MariaDB' }

# use_driver(NAME) -> the object: from now on dsn names the driver NAME,
# on the test database made empty again, once none of the test user's
# connections is left open (a server of the last case may still be
# closing them): one server serves a test's cases with each driver in
# turn.
sub use_driver {
    my ($self, $driver) = @_;
    $self->{driver} = $driver;
    require Kamado::Test;
    Kamado::Test::eventually(sub { !$self->connections }, 30);
    $self->sql("DROP DATABASE IF EXISTS $self->{database}");
    $self->sql("CREATE DATABASE $self->{database}");
    return $self;
}

sub dsn { 'DBI:' . $_[0]->driver . ":database=$_[0]{database};host=127.0.0.1;port=$_[0]{port}" }

# The ids of the connections the test user has open now.
sub connections {
    my ($self) = @_;
    my @ids = sort { $a <=> $b } map { $_->[0] } $self->sql('SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?', $self->{user})->@*;
    # (their count in scalar context)
    return wantarray ? @ids : scalar @ids;
}

sub kill_connection {
    my ($self, $id) = @_;
    $self->sql("KILL CONNECTION " . ($id + 0));
}

1;
__END__

=head1 NAME

Kamado::Test::MariaDB - a private MariaDB server for a test file

=cut
