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
# reset), socket(entry) (the connection's descriptor or undef),
# attributes (the driver's own attributes put back), keeps (whether a
# handle outlives the request), rolls_back (whether its session reset
# also ends a transaction), session(entry, defer) (true: the server
# session is as new, or will be once settle(entry) has read the server's
# answers, when DEFER) and settle(entry) (false: the answers did not come;
# Kamado::DBI calls it before the handle's next use).

use Scalar::Util ();
use Kamado::DBI::Reset::MariaDB;
use Kamado::DBI::Reset::Pg;
use Kamado::DBI::Reset::Reopen;

my %CLASS = (MariaDB => 'Kamado::DBI::Reset::MariaDB', mysql => 'Kamado::DBI::Reset::MariaDB',
    Pg => 'Kamado::DBI::Reset::Pg');

# the methods that use a handle (and its statements' execute); ping,
# begin_work and prepare_cached have callbacks of their own
our @USE = qw(prepare do commit rollback selectrow_array selectrow_arrayref
    selectrow_hashref selectall_arrayref selectall_hashref selectcol_arrayref);

# the attributes that make errors die inside request_end, put back last
my @ERRORS = qw(PrintError RaiseError HandleError);
my %ERRORS = map { $_ => 1 } @ERRORS;

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
    # An attribute a request sets through the handle is noted by the STORE
    # callback, with its value, so that the end of the request puts back
    # only those (reading an attribute through DBI's tie costs as much as a
    # small query's client side); code that replaces the Callbacks is not
    # seen from then on, and every attribute is compared.
    Scalar::Util::weaken(my $entry = $e);
    my $used = sub { Kamado::DBI::used($entry) if $entry; return };
    $dbh->{Callbacks} = { disconnect => \&_no_disconnect, (map { $_ => $used } @USE),
        ping => sub { my $ok = $entry && Kamado::DBI::ping($entry) // return; undef $_; return $ok },
        begin_work => sub { $entry or return; $entry->{txn} = 1; Kamado::DBI::used($entry); return },
        prepare_cached => sub { $entry or return; $entry->{cached} = 1; Kamado::DBI::used($entry); return },
        STORE => sub { $entry->{stored}{ $_[1] } = $_[2] if $entry; return },
        ChildCallbacks => { execute => $used } };
    $e->{reset} = eval { local $dbh->{PrintError} = 0; local $dbh->{RaiseError} = 1; $class->connected($e) }
        ? $class : 'Kamado::DBI::Reset::Reopen';
    # (only the attributes the driver knows: FETCH of another one fails)
    my (%fresh, @names);
    {
        local $dbh->{PrintError} = 0;
        local $dbh->{RaiseError} = 1;
        @names = grep { my $name = $_; eval { $fresh{$name} = $dbh->FETCH($name); 1 } } @ATTRIBUTES, $e->{reset}->attributes;
    }
    $fresh{$_} = $dbh->FETCH($_) for qw(PrintError RaiseError);
    # (DBI->connect sets the attributes it was given once this returns:
    # the handle is as new with them, RaiseError among them, as a script
    # that keeps it in a variable expects to find it again; a later
    # DBI->connect sets its own)
    my $attr = $e->{args}[4];
    exists $attr->{$_} and $fresh{$_} = $attr->{$_} for keys %fresh;
    $e->{names} = \@names;
    $e->{fresh} = \%fresh;
    delete $e->{stored};
}

# (a DBI callback that sets $_ to undef stops the method: disconnect is not called)
sub _no_disconnect { undef $_; return 1 }

# request_end(ENTRY, DEFER) -> true when the handle is ready for the next
# request (with DEFER: once settle(ENTRY) says so). A DBI method is called
# only where the request left something for one to undo.
sub request_end {
    my ($e, $defer) = @_;
    my $dbh = $e->{dbh};
    my $reset = $e->{reset};
    return 0 unless $reset->keeps && $dbh->{Active};
    my $stored = delete $e->{stored} // {};
    my $fresh = $e->{fresh};
    return eval {
        local $SIG{__WARN__} = sub { };
        # statements: a fetch left half way would hold the connection
        my @active = grep { defined && $_->{Active} } ($dbh->{ChildHandles} // [])->@*;
        # the attributes not as a new connection has them
        my $blind = exists $stored->{Callbacks};
        my $names = $blind ? $e->{names} : [grep { exists $fresh->{$_} } keys %$stored];
        my @now = $blind ? @$dbh{@$names} : @$stored{@$names};
        my %restore;
        for my $i (0 .. $#$names) {
            my ($name, $now, $was) = ($names->[$i], $now[$i], $fresh->{ $names->[$i] });
            $restore{$name} = $was if (defined $now) != (defined $was) || (defined $now && $now ne $was);
        }
        # the transaction: rolled back here unless the session reset ends
        # it, and always before AutoCommit goes back on, which would commit it
        my $rollback;
        if (delete $e->{txn} || exists $restore{AutoCommit} || !$reset->rolls_back || $blind) {
            my $auto = $dbh->{AutoCommit};
            $rollback = $dbh->{BegunWork} || ($reset->rolls_back ? !$auto != !$fresh->{AutoCommit} : !$auto);
        }
        # (what may fail, in here: errors die, whatever the script chose)
        my $errors = @active || $rollback || exists $restore{AutoCommit};
        @$dbh{@ERRORS} = (0, 1, undef) if $errors;
        $_->finish for @active;
        %{ $dbh->{CachedKids} } = () if delete $e->{cached} && $dbh->{CachedKids};
        $dbh->rollback if $rollback;
        $dbh->{$_} = $restore{$_} for grep { !$ERRORS{$_} } keys %restore;
        $reset->session($e, $defer) or die "no reset\n";
        my @errors = grep { $errors || exists $restore{$_} } @ERRORS;
        @$dbh{@errors} = @$fresh{@errors};
        delete $e->{stored};
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
