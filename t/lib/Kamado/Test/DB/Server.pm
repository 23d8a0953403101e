package Kamado::Test::DB::Server;
use 5.024;
use strict;
use warnings;

# What the private database servers of the tests share (Kamado::Test::MariaDB,
# Kamado::Test::Pg): a free loopback port, a server process started as a
# child of the test (as an unprivileged user when the test runs as root:
# PostgreSQL refuses root), waited for by probing, stopped by PID.

use Exporter 'import';
use POSIX ();
use Time::HiRes ();
use Kamado ();    # set_parent_death_signal
# A loopback port nothing listens on now, re-exported for the DB tests.
# (Neither server can take a bound socket; a start that loses the port to
# another process is retried by the caller.)
use Kamado::Test::Plackup qw(free_port);

our @EXPORT_OK = qw(free_port spawn stop_pid wait_for run_as);

# (uid, gid) the servers run as: the test's own, or nobody's under root.
sub run_as {
    return ($>, $)+0) if $> != 0;
    my (undef, undef, $uid, $gid) = getpwnam('nobody') or die "no user nobody to run the database as";
    return ($uid, $gid);
}

# spawn(log => FILE, uid => U, gid => G, command...) -> pid. The child
# ends with the test (parent death signal TERM, set after setuid, which
# clears it).
sub spawn {
    my ($opt, @cmd) = @_;
    my $pid = fork // die "Can't fork: $!";
    return $pid if $pid;
    eval {
        open STDIN, '<', '/dev/null' or die;
        open STDOUT, '>>', $opt->{log} or die "$opt->{log}: $!";
        open STDERR, '>&', \*STDOUT or die;
        POSIX::setsid();
        if (defined $opt->{uid} && $> != $opt->{uid}) {
            POSIX::setgid($opt->{gid}) or die "setgid: $!";
            $) = "$opt->{gid} $opt->{gid}";
            POSIX::setuid($opt->{uid}) or die "setuid: $!";
        }
        Kamado::set_parent_death_signal($opt->{death_signal} // POSIX::SIGTERM());
        exec @cmd or die "exec $cmd[0]: $!";
    };
    print STDERR $@;
    POSIX::_exit(127);
}

# Polls PROBE until it returns true; dies with the log when PID exits or
# TIMEOUT seconds pass.
sub wait_for {
    my ($pid, $probe, $log, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 60);
    while (Time::HiRes::time() < $deadline) {
        return 1 if $probe->();
        if (waitpid($pid, POSIX::WNOHANG()) > 0) {
            return 0;    # exited: the caller decides (a lost port is retried)
        }
        Time::HiRes::sleep(0.05);
    }
    kill KILL => $pid;
    waitpid $pid, 0;
    die "database server $pid did not start in time:\n" . _slurp($log);
}

# Sends SIGNAL to PID and waits for it (KILL after TIMEOUT seconds).
sub stop_pid {
    my ($pid, $signal, $timeout) = @_;
    return unless $pid;
    kill $signal, $pid;
    my $deadline = Time::HiRes::time() + ($timeout // 30);
    while (Time::HiRes::time() < $deadline) {
        return if waitpid($pid, POSIX::WNOHANG()) != 0;
        Time::HiRes::sleep(0.02);
    }
    kill KILL => $pid;
    waitpid $pid, 0;
}

sub _slurp {
    my ($file) = @_;
    open my $fh, '<', $file or return '';
    local $/;
    return scalar <$fh>;
}


# The methods both servers' objects share (Kamado::Test::MariaDB and
# Kamado::Test::Pg inherit them): each gives _connect_admin (a superuser
# connection over the unix socket), _start and STOP_SIGNAL.
sub user     { $_[0]{user} }
sub password { $_[0]{password} }
sub port     { $_[0]{port} }
sub pid      { $_[0]{pid} }

# The superuser connection, for the test's admin SQL (made again after a
# restart).
sub admin {
    my ($self) = @_;
    return $self->{admin} if $self->{admin} && $self->{admin_pid} == $self->{pid} && $self->{admin}->ping;
    $self->{admin_pid} = $self->{pid};
    return $self->{admin} = $self->_connect_admin;
}

# sql(SQL, BIND...) as the superuser: the rows of a query (array refs),
# or the count of a statement.
sub sql {
    my ($self, $sql, @bind) = @_;
    my $sth = $self->admin->prepare($sql);
    my $n = $sth->execute(@bind);
    return $sth->{NUM_OF_FIELDS} ? $sth->fetchall_arrayref : $n;
}

# Stops the server and starts it again on the same port and data.
sub restart {
    my ($self) = @_;
    $self->stop;
    $self->_start;
}

sub stop {
    my ($self) = @_;
    delete $self->{admin};
    stop_pid(delete $self->{pid}, $self->STOP_SIGNAL);
}

sub DESTROY {
    my ($self) = @_;
    local ($?, $@);
    $self->stop if $self->{pid};
}

1;
__END__

=head1 NAME

Kamado::Test::DB::Server - start and stop the tests' private database servers

=cut
