package Kamado::DBI::Reset;
use 5.024;
use strict;
use warnings;

# What the end of a request undoes on a kept handle (Kamado::DBI): the
# same for every driver (statements, transaction, attributes), then the
# driver's own session reset, by a class per driver:
#   Kamado::DBI::Reset::MariaDB   DBD::MariaDB, DBD::mysql
#   Kamado::DBI::Reset::Pg        DBD::Pg
#   Kamado::DBI::Reset::Reopen    any other: closed at the end of the request
# Each has connected(entry) (notes what its reset needs; false: cannot
# reset), socket(dbh) (the connection's descriptor or undef),
# attributes (the driver's own attributes put back), keeps (whether a
# handle outlives the request) and session(entry) (true: the server
# session is as new).

use Scalar::Util ();
use Kamado::DBI::Reset::MariaDB;
use Kamado::DBI::Reset::Pg;
use Kamado::DBI::Reset::Reopen;

my %CLASS = (MariaDB => 'Kamado::DBI::Reset::MariaDB', mysql => 'Kamado::DBI::Reset::MariaDB',
    Pg => 'Kamado::DBI::Reset::Pg');

# the methods that use a handle (and its statements' execute)
our @USE = qw(prepare prepare_cached do ping begin_work commit rollback selectrow_array selectrow_arrayref
    selectrow_hashref selectall_arrayref selectall_hashref selectcol_arrayref);

# DBI's attributes a request may change, put back as a new handle had them
# (AutoCommit first: it may need the server)
our @ATTRIBUTES = qw(AutoCommit RaiseError PrintError PrintWarn HandleError HandleSetErr ShowErrorStatement
    FetchHashKeyName ChopBlanks LongReadLen LongTruncOk TaintIn TaintOut Callbacks);

# A new handle in ENTRY (dbh, args => [driver, ...]): made safe across
# fork, disconnect made a no-op, and what a reset needs noted.
sub connected {
    my ($e) = @_;
    my $dbh = $e->{dbh};
    my $class = $CLASS{ $e->{args}[0] } // 'Kamado::DBI::Reset::Reopen';
    $dbh->{AutoInactiveDestroy} = 1;
    # (code that keeps the handle in a variable of its own uses it without
    # DBI->connect: any of these marks it used by the request, to be reset)
    Scalar::Util::weaken(my $entry = $e);
    my $used = sub { $entry->{dirty} = 1 if $entry; return };
    $dbh->{Callbacks} = { disconnect => \&_no_disconnect, (map { $_ => $used } @USE),
        ChildCallbacks => { execute => $used } };
    $e->{reset} = eval { local $dbh->{PrintError} = 0; local $dbh->{RaiseError} = 1; $class->connected($e) }
        ? $class : 'Kamado::DBI::Reset::Reopen';
    $e->{fresh} = { map { ($_ => scalar _fetch($dbh, $_)) } @ATTRIBUTES, $e->{reset}->attributes };
    # (DBI->connect sets the attributes it was given once this returns:
    # those that make the connection, AutoCommit among them, are what a
    # new connection has; DBI's per-call ones are each call's own)
    my $attr = $e->{args}[4];
    exists $attr->{$_} && !$Kamado::DBI::PER_CALL{$_} and $e->{fresh}{$_} = $attr->{$_} for keys $e->{fresh}->%*;
}

# (a DBI callback that sets $_ to undef stops the method: disconnect is not called)
sub _no_disconnect { undef $_; return 1 }

sub _fetch {
    my ($dbh, $name) = @_;
    local $SIG{__WARN__} = sub { };
    my $value = eval { $dbh->FETCH($name) };
    return $value;
}

# request_end(ENTRY) -> true when the handle is ready for the next request.
sub request_end {
    my ($e) = @_;
    my $dbh = $e->{dbh};
    return 0 unless $e->{reset}->keeps && $dbh->{Active};
    return eval {
        local $SIG{__WARN__} = sub { };
        $dbh->{PrintError} = 0;
        $dbh->{RaiseError} = 1;
        $dbh->{HandleError} = undef;
        # statements: a fetch left half way would hold the connection
        for my $sth (grep { defined } ($dbh->{ChildHandles} // [])->@*) {
            $sth->finish if $sth->{Active};
        }
        %{ $dbh->{CachedKids} } = () if $dbh->{CachedKids};
        $dbh->rollback if !$dbh->{AutoCommit} || $dbh->{BegunWork};
        my $fresh = $e->{fresh};
        for my $name (@ATTRIBUTES, $e->{reset}->attributes) {
            next if $name eq 'PrintError' || $name eq 'RaiseError';
            my ($now, $was) = (_fetch($dbh, $name), $fresh->{$name});
            $dbh->{$name} = $was if (defined $now) != (defined $was) || (defined $now && $now ne $was);
        }
        $e->{reset}->session($e) or die "no reset\n";
        @$dbh{qw(PrintError RaiseError)} = @$fresh{qw(PrintError RaiseError)};
        1;
    } ? 1 : 0;
}

1;
__END__

=head1 NAME

Kamado::DBI::Reset - put a kept database handle back as a new connection has it

=head1 SYNOPSIS

    Kamado::DBI::Reset::connected($entry);        # once, after connecting
    Kamado::DBI::Reset::request_end($entry) or ...; # after each request: false, close it

=head1 DESCRIPTION

See L<Kamado::DBI/What is kept and what is reset>.

=cut
