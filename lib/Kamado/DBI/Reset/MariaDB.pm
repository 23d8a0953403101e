package Kamado::DBI::Reset::MariaDB;
use 5.024;
use strict;
use warnings;

# DBD::MariaDB and DBD::mysql: the server's connection reset
# (COM_RESET_CONNECTION: rolls back, drops temporary tables, releases
# GET_LOCK and table locks, user variables and session variables back to
# the global ones, prepared statements gone; the character set stays the
# one the client asked for at connect). Neither driver calls the client
# library's mysql_reset_connection, so the command is written on the
# driver's socket while the connection is idle (between two commands the
# client library keeps no state about the stream), followed in the same
# write by COM_INIT_DB (the connection's database again: the reset keeps
# what a USE chose), a SET ROLE of the role the connection had at login
# (NONE, or the user's default role: the reset keeps the current role,
# so a request's SET ROLE would last for every later request) and, for a
# handle with AutoCommit off, the SET autocommit=0 the driver sent at
# connect. Nothing else a session can set was found to outlive the reset
# (MariaDB 10.11: session variables such as sql_log_bin and
# pseudo_thread_id, the isolation level, FLUSH TABLES WITH READ LOCK,
# BACKUP STAGE, HANDLER, XA all go; SET STATEMENT lasts one statement;
# t/dbi/reset-role.t). Each is answered by one OK
# packet; the answers are read at once, or (DEFER) by settle before the
# handle is used again, so that the round trip overlaps the time between
# two requests. A TLS or compressed connection, whose stream is not ours
# to write, is not reset this way: Kamado::DBI closes it after the
# request instead. The packets and their I/O are C (src/proto/kd_myreset.c).

use constant TIMEOUT_MS => 10_000;

sub connected {
    my ($class, $e) = @_;
    my ($driver, $dsn, $user, $pass, $attr) = $e->{args}->@*;
    my $dbh = $e->{dbh};
    return 0 if grep { $attr->{$_} } qw(mariadb_compression mysql_compression mariadb_init_command mysql_init_command)
        or $dsn =~ /(?:compression|init_command)=(?!0\b)/;
    return 0 unless defined $class->socket($e);
    my (undef, $cipher) = $dbh->selectrow_array(q{SHOW SESSION STATUS LIKE 'Ssl_cipher'});
    return 0 if length($cipher // '');
    # (a server without roles, MySQL before 8.0, has no CURRENT_ROLE)
    my ($database, $role) = eval { $dbh->selectrow_array('SELECT DATABASE(), CURRENT_ROLE()') };
    if ($@) {
        ($database) = $dbh->selectrow_array('SELECT DATABASE()');
    } else {
        $e->{role} = _set_role($dbh, $role);
    }
    $e->{database} = $database;
    return 1;
}

# The SET ROLE that puts back ROLE, CURRENT_ROLE() at login: NULL
# (MariaDB) or NONE (MySQL) for none, a role's name (MariaDB) or a list of
# quoted names (MySQL's `role`@`host`,...).
sub _set_role {
    my ($dbh, $role) = @_;
    my $sql = !defined $role || $role eq 'NONE' ? 'SET ROLE NONE'
        : $role =~ /\A`/ ? "SET ROLE $role" : 'SET ROLE ' . $dbh->quote_identifier($role);
    utf8::encode($sql) if utf8::is_utf8($sql);
    return $sql;
}

sub socket {
    my ($class, $e) = @_;
    return $e->{args}[0] eq 'mysql' ? $e->{dbh}{sockfd} : $e->{dbh}{mariadb_sockfd};
}

sub attributes {
    return qw(mariadb_auto_reconnect mariadb_use_result mariadb_server_prepare mariadb_bind_type_guessing
        mysql_auto_reconnect mysql_use_result mysql_server_prepare mysql_enable_utf8 mysql_enable_utf8mb4
        mysql_bind_type_guessing);
}

sub keeps { 1 }
sub rolls_back { 1 }

sub session {
    my ($class, $e, $defer) = @_;
    my $fd = $class->socket($e) // return 0;
    $fd >= 0 or return 0;
    defined &_send or require Kamado;    # (the XS: src/proto/kd_myreset.c)
    # (the same commands every time: the database and the role of the
    # connection, and AutoCommit as the connection had it, which it has
    # again by now)
    my ($bytes, $count) = @{ $e->{commands} //= [_commands($e->{database}, $e->{role} // (),
        $e->{fresh}{AutoCommit} ? () : 'SET autocommit=0')] };
    $count && _send($fd, $bytes, TIMEOUT_MS) or return 0;
    $e->{pending} = $count;
    # (the descriptor stays the connection's until the handle is used again)
    $e->{fd} = $fd;
    return $defer ? 1 : $class->settle($e);
}

# Reads the answers session left pending: true when each is an OK packet
# and nothing else came.
sub settle {
    my ($class, $e) = @_;
    my $want = delete $e->{pending} or return 1;
    return _settle($e->{fd} // -1, $want, TIMEOUT_MS);
}

1;
__END__

=head1 NAME

Kamado::DBI::Reset::MariaDB - COM_RESET_CONNECTION between requests

=cut
