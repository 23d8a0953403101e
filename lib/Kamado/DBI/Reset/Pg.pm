package Kamado::DBI::Reset::Pg;
use 5.024;
use strict;
use warnings;

# DBD::Pg: DISCARD ALL puts the server session back as the connection
# started it (settings from its startup, no temporary tables, advisory
# locks, LISTENs, prepared statements or cursors). It cannot run inside a
# transaction: a BEGIN the request sent as SQL is rolled back first.

# (a TLS stream cannot be lent across fork: Kamado::DBI::Lend)
sub connected {
    my ($class, $e) = @_;
    $e->{tls} = eval { $e->{dbh}->selectrow_array('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()') } // 1;
    return 1;
}
sub socket     { $_[1]{dbh}{pg_socket} }
sub attributes { qw(pg_server_prepare pg_enable_utf8 pg_placeholder_dollaronly pg_placeholder_nocolons
    pg_bool_tf pg_errorlevel pg_expand_array) }
sub keeps      { 1 }
sub rolls_back { 0 }
sub settle     { 1 }

sub session {
    my ($class, $e) = @_;
    my $dbh = $e->{dbh};
    # (AutoCommit off: DBD::Pg would send BEGIN before it; after the
    # rollback no transaction is open, so switching costs no round trip)
    local $dbh->{AutoCommit} = 1;
    eval { $dbh->do('DISCARD ALL'); 1 } and return 1;
    # SQLSTATE 25001: inside a transaction block
    return 0 unless ($dbh->state // '') eq '25001';
    $dbh->do('ROLLBACK');
    $dbh->do('DISCARD ALL');
    return 1;
}

1;
__END__

=head1 NAME

Kamado::DBI::Reset::Pg - DISCARD ALL between requests

=cut
