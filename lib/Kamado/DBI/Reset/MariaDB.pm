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
# what a USE chose) and, for a handle with AutoCommit off, the SET
# autocommit=0 the driver sent at connect. Each is answered by one OK
# packet; the answers are read at once, or (DEFER) by settle before the
# handle is used again, so that the round trip overlaps the time between
# two requests. A TLS or compressed connection, whose stream is not ours
# to write, is not reset this way: Kamado::DBI closes it after the
# request instead.

use POSIX ();

use constant { COM_QUERY => 3, COM_INIT_DB => 2, COM_RESET_CONNECTION => 31, TIMEOUT => 10 };

sub connected {
    my ($class, $e) = @_;
    my ($driver, $dsn, $user, $pass, $attr) = $e->{args}->@*;
    my $dbh = $e->{dbh};
    return 0 if grep { $attr->{$_} } qw(mariadb_compression mysql_compression mariadb_init_command mysql_init_command)
        or $dsn =~ /(?:compression|init_command)=(?!0\b)/;
    return 0 unless defined $class->socket($e);
    my (undef, $cipher) = $dbh->selectrow_array(q{SHOW SESSION STATUS LIKE 'Ssl_cipher'});
    return 0 if length($cipher // '');
    ($e->{database}) = $dbh->selectrow_array('SELECT DATABASE()');
    return 1;
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
    my $dbh = $e->{dbh};
    my $fd = $class->socket($e) // return 0;
    $fd >= 0 or return 0;
    my @commands = (chr COM_RESET_CONNECTION);
    push @commands, chr(COM_INIT_DB) . $e->{database} if length($e->{database} // '');
    # (AutoCommit is as the connection had it by now)
    push @commands, chr(COM_QUERY) . 'SET autocommit=0' unless $e->{fresh}{AutoCommit};
    # (the descriptor by number: a Perl handle on it would close it when it goes)
    my $out = join '', map { substr(pack('V', length $_), 0, 3) . "\0" . $_ } @commands;
    _write($fd, $out) or return 0;
    $e->{pending} = @commands;
    # (the descriptor stays the connection's until the handle is used again)
    $e->{fd} = $fd;
    return $defer ? 1 : $class->settle($e);
}

# Reads the answers session left pending: true when each is an OK packet.
sub settle {
    my ($class, $e) = @_;
    my $want = delete $e->{pending} or return 1;
    my $fd = $e->{fd} // return 0;
    my ($buf, $ok) = ('', 0);
    while ($want) {
        vec(my $r = '', $fd, 1) = 1;
        select($r, undef, undef, TIMEOUT) > 0 or return 0;
        my $n = POSIX::read($fd, my $got, 4096);
        return 0 unless defined $n && $n > 0;    # (end of file: the server closed it)
        $buf .= $got;
        # (4-byte header: 3 bytes of length, a sequence number)
        while ($want && length $buf >= 4) {
            my $size = unpack('V', substr($buf, 0, 3) . "\0");
            last if length $buf < 4 + $size;
            return 0 unless substr($buf, 4, 1) eq "\0";    # an OK packet; else ERR
            substr $buf, 0, 4 + $size, '';
            $want--;
        }
    }
    # (nothing the server sent may be left unread: the driver reads next)
    return length $buf ? 0 : 1;
}

sub _write {
    my ($fd, $bytes) = @_;
    while (length $bytes) {
        # (POSIX's calls say 0 as "0 but true": compared, not tested)
        my $n = POSIX::write($fd, $bytes, length $bytes);
        return 0 unless defined $n && $n > 0;
        substr $bytes, 0, $n, '';
    }
    return 1;
}

1;
__END__

=head1 NAME

Kamado::DBI::Reset::MariaDB - COM_RESET_CONNECTION between requests

=cut
