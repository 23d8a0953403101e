package Kamado::DBI;
use 5.024;
use strict;
use warnings;

use Scalar::Util ();
use Time::HiRes ();
use Kamado::DBI::Reset;

# Persistent database handles, as Apache::DBI keeps them for mod_perl,
# for code that calls DBI->connect on every request: DBI->connect with
# the same data source, user, password and connection attributes returns
# the handle this process made before, checked before reuse; disconnect
# does nothing; and at the end of each request whatever the request left
# on it is undone (Kamado::DBI::Reset). A handle belongs to the process
# that made it: after a fork, the child makes its own.

# seconds idle after which a handle is pinged (fork mode's zygote sets
# it before this loads)
our $PING_INTERVAL //= do { require Kamado::Options; Kamado::Options::default('dbi_ping_interval') };
our $REPORT;               # sub (entry) called when a handle is made (fork mode)
our $LOG_LEVEL;            # the server's --log-level, in fork mode's zygote (Kamado::Log's is not set there)

my %cache;           # key -> entry { key, dbh, reset, fresh, last, dirty, args }
my $owner = $$;      # the process the handles in %cache belong to
our %LENT;           # key -> pid of the zygote lending the handle to its next child
my %borrowed;        # in such a child: the keys it borrowed
our $pinging;        # a ping of ours is under way (the ping callback lets it through)

# DBI's own attributes that DBI->connect sets on the handle it returns
# on every call: they do not make a connection of its own
our %PER_CALL = map { $_ => 1 } qw(RaiseError RaiseWarn PrintError PrintWarn HandleError HandleSetErr
    ShowErrorStatement FetchHashKeyName ChopBlanks LongReadLen LongTruncOk TaintIn TaintOut Taint Warn
    Profile TraceLevel Callbacks Username InactiveDestroy AutoInactiveDestroy dbi_connect_method);

# enable(ping_interval => SECONDS): DBI->connect goes through here from
# now on (or once DBI is loaded).
sub enable {
    my ($class, %opt) = @_;
    $PING_INTERVAL = $opt{ping_interval} if defined $opt{ping_interval};
    require Kamado::DBI::Hook;
    Kamado::DBI::Hook::install();
}

sub install {
    no warnings qw(once redefine);
    $DBI::connect_via = 'Kamado::DBI::connect';
    # DBI's END block disconnects every handle of every driver: in a child
    # borrowing its zygote's connections (fork mode) that would close them
    # DBI->connect_cached goes to the driver's own cache (never reset)
    # unless DBI's connect_via is Apache::DBI's: so it comes here too
    *DBI::connect_cached = sub {
        my ($class, $dsn, $user, $pass, $attr) = @_;
        return $class->connect($dsn, $user, $pass, { $attr ? %$attr : (), dbi_connect_method => 'Kamado::DBI::connect' });
    };
    my $all = \&DBI::disconnect_all;
    *DBI::disconnect_all = sub {
        _adopt() if $owner != $$;
        return if %borrowed;
        goto &$all;
    };
}

# DBI's connect_via: called as a method of the driver handle DRH.
sub connect {
    my ($drh, $dsn, $user, $pass, $attr) = @_;
    _adopt() if $owner != $$;
    my $key = key($drh->{Name}, $dsn, $user, $pass, $attr);
    my $now = Time::HiRes::time();
    if (my $e = $cache{$key}) {
        # (handed out earlier in this request: used as it is)
        # (a descriptor noted by the last reset: the handle is as it left it, connected)
        if ((!$e->{pending} || _settle($e)) && (defined $e->{fd} || $e->{dbh}{Active})
            && ($e->{dirty} || _alive($e, $now))) {
            $e->{dirty} = 1;
            $e->{last} = $now;
            $e->{asked} = 1 if $e->{predicted};
            return $e->{dbh};
        }
        _drop($e, 'found dead, connecting again');
    }
    # (the attributes as given: a driver may add its own to the hash,
    # DBD::mysql a hash of mysql_conn_attrs, which fork mode cannot send)
    my %given = %{ $attr // {} };
    my $dbh = $drh->connect($dsn, $user, $pass, $attr) or return undef;
    my $e = { key => $key, dbh => $dbh, last => $now, dirty => 1, args => [$drh->{Name}, $dsn, $user, $pass, \%given] };
    Kamado::DBI::Reset::connected($e);
    $cache{$key} = $e;
    $REPORT->($e) if $REPORT;
    return $dbh;
}

# The cache key: the driver, the data source, the user and password and
# the attributes that shape the connection (a reference by its type: a
# new closure on each request is the same handle).
sub key {
    my ($driver, $dsn, $user, $pass, $attr) = @_;
    return join "\0", $driver, $dsn // '', $user // '', $pass // '',
        map { "$_=" . (ref $attr->{$_} ? ref $attr->{$_} : $attr->{$_} // '') } sort grep { !$PER_CALL{$_} } keys %$attr;
}

# Whether a handle not used in this request can be handed out: its
# socket is quiet (a server that closed it, or is about to, has made it
# readable: no round trip needed to see that) and, when it has been idle
# for PING_INTERVAL seconds or more, it answers a ping.
sub _alive {
    my ($e, $now) = @_;
    return _quiet($e, $now) || _ping($e);
}

sub _ping {
    my ($e) = @_;
    my $dbh = $e->{dbh};
    local $pinging = 1;
    return eval { local $dbh->{PrintError} = 0; local $dbh->{RaiseError} = 0; $dbh->ping } ? 1 : 0;
}

# Whether the server answered on the handle less than PING_INTERVAL
# seconds ago and has not closed its socket (a driver whose socket is not
# known: whether it answered lately).
sub _quiet {
    my ($e, $now) = @_;
    return 0 if $now - $e->{last} >= $PING_INTERVAL;
    my $fd = $e->{fd} // $e->{reset}->socket($e);
    return 1 unless defined $fd && $fd >= 0;
    vec(my $r = '', $fd, 1) = 1;
    return select($r, undef, undef, 0) == 0;
}

# DBI callbacks on a kept handle (Kamado::DBI::Reset): used(ENTRY) when a
# method that talks to the server is called, ping(ENTRY) for ping. A ping
# is answered without a round trip when _quiet says the server is there
# (as DBI->connect's check of a kept handle); otherwise the driver's ping
# runs, and a handle that fails it is closed, so that the DBI->connect a
# script makes next (the seed's idiom) connects again. undef: let the
# driver's ping run (our own ping, or a handle of no known socket).
sub used {
    my ($e) = @_;
    $e->{dirty} = 1;
    _settle($e) if $e->{pending};
    # (a use may reconnect: the descriptor is asked for again)
    delete $e->{fd};
}

sub ping {
    my ($e) = @_;
    return undef if $pinging;
    $e->{dirty} = 1;
    if ($e->{pending}) { _settle($e) or return 0 }
    my $dbh = $e->{dbh};
    my $fd = $e->{fd};
    if (!defined $fd) {
        return 0 unless $dbh->{Active};
        $fd = $e->{reset}->socket($e);
        return undef unless defined $fd && $fd >= 0;
        $e->{fd} = $fd;    # (for _quiet; the next use asks again)
    }
    my $now = Time::HiRes::time();
    return 1 if _quiet($e, $now);
    delete $e->{fd};
    if (_ping($e)) {
        $e->{last} = $now;
        return 1;
    }
    _drop($e, 'failed a ping: closed') if $cache{ $e->{key} } && $cache{ $e->{key} } == $e;
    # (a failed ping answers false, as the driver's own does: the error
    # left on the handle would make DBI raise it for the script's call)
    $dbh->set_err(undef, undef);
    return 0;
}

# Reads the answers to a session reset left pending (end_request(defer)):
# a connection that did not answer is thrown away.
sub _settle {
    my ($e) = @_;
    return 1 if $e->{reset}->settle($e);
    _discard($e, 'did not answer its reset: connecting again');
    return 0;
}

# begin_request: before a request, after end_request(defer => 1): the
# server's answers to the resets are read.
sub begin_request {
    _adopt() if $owner != $$;
    $_->{pending} and _settle($_) for values %cache;
}

# end_request(defer => BOOL): the handles handed out or used since the
# last call are put back as their DBI->connect left them
# (Kamado::DBI::Reset); one that cannot be is closed, and the next connect
# makes another. DEFER: the server's answers to the session reset are
# read by begin_request (or the handle's next use), not now.
sub end_request {
    my (%opt) = @_;
    _adopt() if $owner != $$;
    my $now = Time::HiRes::time();
    for my $e (grep { $_->{dirty} } values %cache) {
        if (Kamado::DBI::Reset::request_end($e, $opt{defer})) {
            $e->{dirty} = 0;
            $e->{last} = $now;
        } else {
            _drop($e, $e->{reset}->keeps ? 'could not be reset: closed' : '');
        }
    }
}

# A psgix.cleanup handler: end_request(defer => 1).
sub cleanup { end_request(defer => 1) }

# Whether HANDLE, kept by a script in a package variable (registry mode),
# is still connected at the next request: not when it is one of ours of a
# driver without a session reset, which end_request closes. The script
# then finds its variable as it was before the run and connects again,
# as under plain CGI.
sub survives {
    my ($dbh) = @_;
    my $addr = Scalar::Util::refaddr($dbh) // return 1;
    for my $e (values %cache) {
        return $e->{reset}->keeps if Scalar::Util::refaddr($e->{dbh}) == $addr;
    }
    return 1;
}

# Whether a handle was handed out since the last end_request.
sub in_use { scalar grep { $_->{dirty} } values %cache }

# The entries (for Kamado::DBI::Lend).
sub entries { values %cache }

sub _drop {
    my ($e, $why) = @_;
    delete $cache{ $e->{key} };
    delete $LENT{ $e->{key} };
    my $dbh = $e->{dbh};
    _log("$e->{args}[0] handle $why") if $why;
    eval {
        local $dbh->{PrintError} = 0;
        local $dbh->{RaiseError} = 0;
        $dbh->{Callbacks} = undef;
        $dbh->disconnect if $dbh->{Active};
    };
}

# After a fork: the parent's handles stay the parent's (AutoInactiveDestroy:
# the child's copies never close them); only a handle lent to this child
# by its zygote (Kamado::DBI::Lend) is kept.
sub _adopt {
    %borrowed = ();
    for my $e (values %cache) {
        if ($LENT{ $e->{key} } && $LENT{ $e->{key} } == getppid()) {
            $borrowed{ $e->{key} } = 1;
            next;
        }
        $e->{dbh}{InactiveDestroy} = 1;
        delete $cache{ $e->{key} };
    }
    %LENT = ();
    $owner = $$;
}

# At the end of a fork mode child (Kamado::CGI::Process::Zygote's quiet exit):
# closes the connections this process made itself, as their destructors
# would have, and returns DBI's destructors, which then have nothing left
# to do that anyone could see: every handle still open is its zygote's,
# lent or inherited, which a child never closes. Returns none (perl's exit
# runs every destructor) when a handle is neither; a handle class's own
# Perl DESTROY is never skipped (the XS takes only XS destructors).
sub quiet_destructors {
    return [] unless $INC{'DBI.pm'};
    _adopt() if $owner != $$;
    my %entry = map { (Scalar::Util::refaddr($_->{dbh}) => $_) } values %cache;
    my (%destroy, @close, $unknown);
    DBI->visit_handles(sub {
        my ($h) = @_;
        for my $class (ref $h, $h->{ImplementorClass}) {
            for my $c ($class, "${class}_mem") {
                my $d = $c->can('DESTROY') or next;
                $destroy{$d} = $d;
            }
        }
        if ($h->{Type} eq 'db' && $h->{Active} && !$h->{InactiveDestroy}) {
            my $e = $entry{ Scalar::Util::refaddr($h) };
            if (!$e) { $unknown = 1 }
            elsif (!$borrowed{ $e->{key} }) { push @close, $e }
        }
        return 1;
    });
    return [] if $unknown;
    _drop($_, '') for @close;
    return [values %destroy];
}

# Fork mode (Kamado::DBI::Lend). In the zygote: the handles it may lend
# (clean, of a driver with a reset, not TLS: the stream's state would be
# the child's alone).
sub lendable {
    return grep { !$_->{dirty} && !$_->{tls} && $_->{reset}->keeps && $_->{dbh}{Active} } values %cache;
}

# In the zygote, once a child that borrowed KEYS has exited: CLEAN (it
# ran its END blocks and was not killed) means each connection is between
# two commands and is reset here as after a request; else each may be in
# the middle of a reply, and is abandoned.
sub returned {
    my ($clean, $used, @keys) = @_;
    for my $key (@keys) {
        my $e = $cache{$key} or next;
        if ($clean && $e->{predicted} && !$used->{ $e->{predicted} }) {
            _drop($e, '');
            _debug("$e->{args}[0] handle made on a prediction and not asked for by the first child: closed");
            next;
        }
        delete $e->{predicted} if $clean;
        if ($clean) {
            $e->{dirty} = 1;
        } else {
            abandon($key, 'left by a fork mode child that did not end cleanly: connecting again');
        }
    }
    end_request(defer => 1);
}

# In the zygote: a lent handle that did not come back ready is thrown
# away without a word on its connection (a child may have left it in the
# middle of a reply), and connected again.
sub abandon {
    my ($key, $why) = @_;
    my $e = $cache{$key} or return;
    _discard($e, $why);
    connect_lendable($e->{args}->@*);
    # (made on a prediction that no child has yet shown right or wrong: still so)
    $cache{$key}{predicted} = $e->{predicted} if $e->{predicted} && $cache{$key};
}

# In the zygote, before its first child: a connection made as the
# script's DBI->connect(DSN, USER, PASS, ATTR) will make it, read from
# the script by Kamado::DBI::Predict (Kamado::DBI::Lend::predict); lent
# as connect_lendable's, and closed when the first child that borrows it
# does not ask for it. One that fails is noted at debug level only: the
# script's own connect reports its failure as it always has.
my $predictions = 0;

sub connect_predicted {
    my ($dsn, $user, $pass, $attr) = @_;
    my $dbh = eval {
        local $SIG{__WARN__} = sub { };
        DBI->connect($dsn, $user, $pass, $attr ? {%$attr} : ());
    };
    my ($e) = $dbh ? grep { $_->{dbh} == $dbh } values %cache : ();
    if (!$e) {
        my ($driver) = ($dsn // '') =~ /\Adbi:(\w+)/i;
        _debug(($driver // '?') . ': a predicted connection could not be made: ' . ($DBI::errstr // $@ // 'no handle'));
        return;
    }
    end_request();
    # (two predictions that differ only in DBI's per-call attributes: one connection)
    delete $e->{asked};
    $e->{predicted} //= ++$predictions;
}

# In a fork mode child: the predicted connections it was lent and asked for.
sub predictions_used { map { $_->{predicted} } grep { $_->{predicted} && $_->{asked} } values %cache }

# A handle whose stream may be in the middle of something: closed
# without a word on it.
sub _discard {
    my ($e, $why) = @_;
    delete $cache{ $e->{key} };
    delete $LENT{ $e->{key} };
    my $fd = $e->{reset}->socket($e);
    $e->{dbh}{InactiveDestroy} = 1;
    $e->{dbh}{Callbacks} = undef;
    # (a handle opened on the descriptor, closed: the descriptor closes)
    if (defined $fd && $fd >= 0 && open my $fh, '+<&=', $fd) { close $fh }
    _log("$e->{args}[0] handle $why");
}

# In the zygote: a connection for its children to borrow (DRIVER, DSN,
# USER, PASS, ATTR as a child's DBI->connect made them), unless it has one.
sub connect_lendable {
    my ($driver, $dsn, $user, $pass, $attr) = @_;
    return if $cache{ key($driver, $dsn, $user, $pass, $attr) };
    eval {
        my $drh = DBI->install_driver($driver);
        Kamado::DBI::connect($drh, $dsn, $user, $pass, $attr) or die($DBI::errstr // "connect failed\n");
        end_request();
        1;
    } or _log("$driver: could not connect for fork mode's children: $@");
}

sub _log { _say(info => @_) }
sub _debug { _say(debug => @_) }

sub _say {
    my ($level, @message) = @_;
    require Kamado::Log;
    # (in fork mode's zygote: the server's level, and a role that says whose line it is)
    if (defined $LOG_LEVEL) {
        Kamado::Log->set_level($LOG_LEVEL) if Kamado::Log->is_level($LOG_LEVEL);
        Kamado::Log->set_role('zygote');
        undef $LOG_LEVEL;
    }
    Kamado::Log->$level("Kamado::DBI: @message");
}

1;
__END__

=head1 NAME

Kamado::DBI - database handles kept across requests, reset after each

=head1 SYNOPSIS

    # CGI scripts under kamado: on by default (--no-persistent-dbi: off)
    kamado --cgi-bin cgi-bin --cgi-mode registry --dbi-ping-interval 5

    # any code, with end_request called after each request
    use Kamado::DBI;
    Kamado::DBI->enable(ping_interval => 5);
    ...
    Kamado::DBI::end_request();

=head1 DESCRIPTION

Once enabled, C<< DBI->connect >> (and C<< DBI->connect_cached >>,
which then goes here too, as DBI does for Apache::DBI) returns the handle the process made before for the same driver, data
source, user, password and connection attributes, as L<Apache::DBI>
does. DBI's own per-handle attributes (C<RaiseError>, C<PrintError>,
C<HandleError>...) are not part of the key: C<< DBI->connect >> sets them
on the handle it returns on every call, so scripts that differ only in
them share a connection.

=head2 Before a handle is handed out again

A handle not yet used in the current request is checked first. A server
that closed the connection (C<KILL>, a restart, C<wait_timeout>,
C<pg_terminate_backend>) makes its socket readable, which is seen without
a round trip; a handle idle for C<ping_interval> seconds or more
(C<--dbi-ping-interval>, default 5) is also pinged. A handle that fails
either is closed and a new connection made, so the request never sees
the dead one.

The default is not Apache::DBI's ping on every reuse: a connection the
server closed is already seen for free, and the ping is left for a
connection cut without a close (a firewall that dropped it, a host that
vanished), which is rare and which a handle used within the last few
seconds has not suffered. Under load the ping costs nothing; an idle
worker pays one round trip. C<0> pings on every reuse, as Apache::DBI.

A script's own C<< $dbh->ping >> on a kept handle (seed 004's
C<if (!defined $dbh or !$dbh->ping)>) is answered the same way: true
without a round trip when the server answered within C<ping_interval>
and has not closed the socket, else by the driver's ping. A handle that
fails it is closed, so that the C<< DBI->connect >> the script makes
next connects again.

=head2 What is kept and what is reset

Kept, from one request to the next: the connection itself (the server
session: its login, its database), and the driver's handle.
C<< $dbh->disconnect >> does nothing (a DBI callback). Code that sets
the handle's own C<Callbacks> (at connect or later) replaces Kamado's for
that request: its C<disconnect> then closes the connection (the next
request connects again), and only its C<< DBI->connect >> marks it used.

Reset at the end of every request in which the handle was handed out
or used (L<Kamado::DBI::Reset>). Code that keeps the handle in a variable
of its own, such as a module's C<my $dbh>, and does not call
C<< DBI->connect >> again is seen by DBI callbacks on the methods that
use it: C<prepare>, C<do>, the C<select*> helpers, C<begin_work>,
C<commit>, C<rollback>, C<ping>, and its statements' C<execute>.
Statement handles still active are finished and C<prepare_cached>'s
statements dropped; a transaction left open is rolled back
(C<begin_work>, C<AutoCommit> off, or a C<BEGIN> sent as SQL); the
handle's attributes (C<AutoCommit>, C<RaiseError>, C<PrintError>,
C<HandleError>, C<FetchHashKeyName>, C<LongReadLen>... and the driver's
own, such as C<mariadb_auto_reconnect> or C<pg_server_prepare>) that the
request set through the handle (DBI's C<STORE> callback notes them;
after code replaced the handle's C<Callbacks>, every one is compared) are put
back as the C<< DBI->connect >> that made the connection left them (a
handle kept in a variable and connected with C<RaiseError> keeps it; a
later C<< DBI->connect >> sets its own); and the server session is made
new:

=over

=item MariaDB and MySQL (DBD::MariaDB, DBD::mysql)

The server's connection reset (C<COM_RESET_CONNECTION>, MariaDB 10.2.4
and MySQL 5.7.3 on): user variables, session variables (C<time_zone>,
C<sql_mode>...), temporary tables, C<GET_LOCK> locks, table locks and
prepared statements go, C<LAST_INSERT_ID> is cleared; then the database
of the connection is chosen again (C<USE> in a request does not last),
its role set again as it was at login (C<SET ROLE> in a request does not
last: the server's reset keeps the current role; a user's default role,
the one it had at login, comes back) and C<autocommit> set as the handle
has it. Neither driver offers the reset
as a method, so it is sent as the protocol's one-byte command on the
driver's socket while the connection is idle; where that cannot be done
(a TLS or compressed connection, a server that refuses it) the
connection is closed and the next request makes a new one.

=item PostgreSQL (DBD::Pg)

C<DISCARD ALL>: session settings (C<search_path>, C<TimeZone>...,
back to what the connection started with), temporary tables, advisory
locks, C<LISTEN>, prepared statements and cursors go.

=item Other drivers (SQLite among them)

Nothing tells what a request may have changed on the connection (for
SQLite: C<PRAGMA>s, C<ATTACH>, temporary tables, functions and hooks
registered on the handle), so the handle is kept for the rest of the
request only, and closed at its end (an SQLite open costs little).

=back

=head2 Processes

A handle belongs to the process that connected it. Every handle is made
with C<AutoInactiveDestroy>, so a child forked by a script or by the
server never closes its parent's connection when its copy goes, and the
child that calls C<< DBI->connect >> gets a connection of its own.

The one exception is fork mode (L<Kamado::DBI::Lend>): the zygote that
forks a script's children loads the drivers they used and holds the
connections, and lends them to one child at a time. It connects before
its first child runs when the script's C<< DBI->connect >> (or
C<connect_cached>) names its arguments as literals, or as scalars the
file sets once from literals (seed 004's
C<my ($dsn, $dbuser, $dbpass) = (...)>), read from the compiled script
(L<Kamado::DBI::Predict>), so that a zygote makes one connection, not
two; otherwise it connects once its first child has. A connection made
on such a reading that the first child does not ask for is closed, and
one that fails is a C<debug> line: the script's own connect says why.
As soon as the
child has exited (not when the script is next requested), the zygote
resets them as above if the child ended cleanly (its END blocks ran, no
signal killed it), and otherwise closes them unused (a child killed
mid-query leaves a reply half read) and connects again: a transaction,
C<LOCK TABLES> or C<GET_LOCK> a child left goes when it ends, as a CGI
process's exit ends its connection.
A connection made over TLS is not lent (the stream's state would be the
child's alone); nor is one whose connection attributes hold references.
Exec mode runs a new perl for every request and keeps nothing.

=head1 FUNCTIONS

=over

=item enable(ping_interval => SECONDS)

Routes C<< DBI->connect >> here (DBI's C<connect_via>), now or once DBI
is loaded (L<Kamado::DBI::Hook>).

=item end_request(defer => BOOL)

Resets the handles handed out since the last call. With C<defer>, the
server's answers to a session reset that has them (MariaDB's) are read
by the next C<begin_request>, or when the handle is next used, not now:
the round trip then overlaps the time between two requests. Kamado
resets after each CGI request in the registry and perlrun modes, and
through C<psgix.cleanup> for PSGI apps (L<Plack::Middleware::Kamado::DBI>),
deferred in both.

=item begin_request

Reads the answers C<end_request(defer =E<gt> 1)> left; a handle whose
server did not answer is closed, and the next connect makes another.
Call it before each request when deferring (code between two requests
that reads an attribute the driver asks the server for would otherwise
read the reset's answer).

=item cleanup

C<end_request(defer =E<gt> 1)>, as a C<psgix.cleanup> handler.

=back

=head1 SEE ALSO

L<Apache::DBI>, L<Kamado::DBI::Reset>, L<DBI/connect_cached>.

=cut
