package Kamado::Test::Pg;
use 5.024;
use strict;
use warnings;

# A private PostgreSQL server for a test file: initdb under a temporary
# directory, postgres on a free loopback port (and a unix socket there),
# run as nobody when the test runs as root (PostgreSQL refuses root); a
# database and a user with a password (scram over TCP) for the code under
# test, the superuser over the socket for the test's own admin SQL.
# Stopped by PID when the object goes (or the test ends).
#
#   my $db = Kamado::Test::Pg->start;
#   DBI->connect($db->dsn, $db->user, $db->password);
#   $db->sql('SELECT pg_terminate_backend(?)', $pid);   $db->restart;

use DBI;
use File::Temp ();
use POSIX ();
use Kamado::Test::DB::Server qw(free_port spawn wait_for run_as);
our @ISA = ('Kamado::Test::DB::Server');

use constant STOP_SIGNAL => 'INT';    # (a fast shutdown)

sub _bin {
    my ($name) = @_;
    my @dirs = ($ENV{KAMADO_TEST_PG_BIN} // (), reverse(sort glob('/usr/lib/postgresql/*/bin')), split /:/, $ENV{PATH} // '');
    for (@dirs) { return "$_/$name" if -x "$_/$name" }
    die "$name is not installed (dev/deps installs postgresql)\n";
}

sub start {
    my ($class) = @_;
    my $tmp = File::Temp->newdir('kamado-pg-XXXXXX', TMPDIR => 1);
    my $self = bless { tmp => $tmp, dir => "$tmp", user => 'kamado', password => 'kamado-pw', database => 'kamado' },
        $class;
    @$self{qw(uid gid)} = run_as();
    chown $self->{uid}, $self->{gid}, $self->{dir} or die "chown $self->{dir}: $!";
    chmod 0700, $self->{dir};
    my $log = "$self->{dir}/initdb.log";
    # (a child as the server's user: initdb refuses root too)
    my $pid = spawn({ log => $log, uid => $self->{uid}, gid => $self->{gid} },
        _bin('initdb'), '-D', "$self->{dir}/data", '-U', 'postgres', '-A', 'trust', '--auth-host=scram-sha-256',
        '-E', 'UTF8', '--locale=C', '-N');
    waitpid $pid, 0;
    $? == 0 or die "initdb failed:\n" . Kamado::Test::DB::Server::_slurp($log);
    $self->_start;
    my $dbh = $self->admin;
    $dbh->do("CREATE USER $self->{user} PASSWORD '$self->{password}'");
    $dbh->do("CREATE DATABASE $self->{database} OWNER $self->{user}");
    return $self;
}

# postgres on a free port, waited for by connecting; a port taken
# meanwhile by another process is retried on another.
sub _start {
    my ($self) = @_;
    for my $try (1 .. 5) {
        $self->{port} //= free_port();
        my $log = "$self->{dir}/server.log";
        # (INT on the test's death: a fast shutdown)
        my $pid = spawn({ log => $log, uid => $self->{uid}, gid => $self->{gid}, death_signal => POSIX::SIGINT() },
            _bin('postgres'), '-D', "$self->{dir}/data", '-p', $self->{port}, '-k', $self->{dir},
            '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off',
            '-c', 'full_page_writes=off', '-c', 'max_connections=100', '-c', 'shared_buffers=8MB');
        if (wait_for($pid, sub { $self->_probe }, $log)) {
            $self->{pid} = $pid;
            return;
        }
        my $text = Kamado::Test::DB::Server::_slurp($log);
        die "postgres did not start:\n$text" unless $text =~ /already in use/;
        delete $self->{port};
    }
    die "postgres: no free port after 5 tries\n";
}

sub _probe {
    my ($self) = @_;
    return eval { $self->_connect_admin('postgres') };
}

sub _connect_admin {
    my ($self, $db) = @_;
    $db //= 'postgres';
    return DBI->connect("DBI:Pg:dbname=$db;host=$self->{dir};port=$self->{port}", 'postgres', '',
        { PrintError => 0, RaiseError => 1, AutoCommit => 1 });
}

sub dsn      { "DBI:Pg:dbname=$_[0]{database};host=127.0.0.1;port=$_[0]{port}" }

# The backend pids of the test user's connections now.
sub connections {
    my ($self) = @_;
    my @ids = sort { $a <=> $b } map { $_->[0] } $self->sql('SELECT pid FROM pg_stat_activity WHERE usename = ?', $self->{user})->@*;
    # (their count in scalar context)
    return wantarray ? @ids : scalar @ids;
}

sub kill_connection {
    my ($self, $pid) = @_;
    $self->sql('SELECT pg_terminate_backend(?)', $pid);
    # (it returns before the backend has gone)
    for (1 .. 500) {
        last unless grep { $_ == $pid } $self->connections;
        select undef, undef, undef, 0.01;
    }
}

# What the server wrote to its log so far (log_statement = 'all' makes
# it every statement: see $db->sql('ALTER SYSTEM ...')).
sub log { Kamado::Test::DB::Server::_slurp("$_[0]{dir}/server.log") }

1;
__END__

=head1 NAME

Kamado::Test::Pg - a private PostgreSQL server for a test file

=cut
