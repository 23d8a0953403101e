package PersistentPerl;
use 5.024;
use strict;
use warnings;

# The API version this module provides: PersistentPerl 2.23's.
our $VERSION = '2.23';

# The PersistentPerl (SpeedyCGI) API for scripts written for it, so that
# they run unchanged under Kamado, and under plain perl as they did.
#
# Where the calls go:
# - in a Kamado worker running the script (modes registry and perlrun),
#   to the runner Kamado puts in $RUNNER for the run
#   (Kamado::CGI::InProcess::Persistent), which knows when the script's state ends;
# - elsewhere (plain perl, mod_perl, and Kamado's fork mode, where each
#   request is a process of its own), the process's end is the end: the
#   cleanups and shutdown handlers run in the END block below.

our $RUNNER;    # set by Kamado while a script runs in the worker
our $KAMADO;    # set by Kamado's fork mode in the script's process

my @shutdown;   # (outside a Kamado worker) the shutdown handlers
my @cleanup;    # (outside a Kamado worker) the cleanups
my %option;     # setopt's values, by upper-cased name

sub new {
    my ($class) = @_;
    return bless {}, ref $class || $class;
}

sub i_am_perperl { $RUNNER || $KAMADO ? 1 : 0 }

sub add_shutdown_handler {
    my ($self, $code) = @_;
    return $RUNNER->add_shutdown_handler($code) if $RUNNER;
    push @shutdown, $code if ref $code;
    return;
}

# (the older API: the one handler, replacing those there were; the
# previous one is returned)
sub set_shutdown_handler {
    my ($self, $code) = @_;
    return $RUNNER->set_shutdown_handler($code) if $RUNNER;
    my $old = $shutdown[-1];
    @shutdown = ref $code ? ($code) : ();
    return $old;
}

sub register_cleanup {
    my ($self, $code) = @_;
    return $RUNNER->register_cleanup($code) if $RUNNER;
    push @cleanup, $code if ref $code;
    return;
}

sub shutdown_next_time {
    $RUNNER->shutdown_next_time if $RUNNER;
    return;
}

# Does not return: in a worker the script ends here (as with exit) and
# the worker exits once the response is sent; elsewhere the process exits.
sub shutdown_now {
    $RUNNER->shutdown_now if $RUNNER;
    exit 0;
}

# Every script is in the one group PersistentPerl calls "none": each
# Kamado worker runs any script of its mounts.
sub getgroupname { 'none' }

# Options are kept (getopt returns what setopt set) but change nothing:
# Kamado's own options (--max-requests, --max-workers...) govern workers.
sub setopt {
    my ($self, $name, $value) = @_;
    my $old = $option{ uc $name };
    $option{ uc $name } = $value;
    return $old;
}

sub getopt { $option{ uc $_[1] } }

# The end of the process: the cleanups, then the shutdown handlers.
# (In a Kamado worker, where this block may be taken for a script's own
# END block and run after each run, $RUNNER is set and it does nothing.)
END {
    unless ($RUNNER) {
        local ($?, $@);
        for my $code (splice(@cleanup), splice(@shutdown)) {
            eval { $code->(); 1 } or warn "PersistentPerl: a handler died: $@";
        }
    }
}

1;
__END__

=head1 NAME

PersistentPerl - the PersistentPerl (SpeedyCGI) API for scripts run by Kamado

=head1 SYNOPSIS

    #!/usr/bin/perperl -w -- -t300
    use DBI;
    use PersistentPerl;
    our ($pp, $dbh);
    if (!defined $dbh or !$dbh->ping) {
        $dbh = DBI->connect($dsn, $user, $pass, { RaiseError => 1, AutoCommit => 0 });
        if (!defined $pp) {
            $pp = PersistentPerl->new;
            $pp->add_shutdown_handler(sub { eval { $dbh->rollback }; eval { $dbh->disconnect } });
        }
    }

=head1 DESCRIPTION

Scripts written for PersistentPerl (the successor of SpeedyCGI) run
unchanged under L<Kamado>'s CGI runner: their C<#!/usr/bin/perperl> or
C<#!/usr/bin/speedy> line is read as a perl line (its perl switches
count; the PersistentPerl options after C<--> are ignored), and this
module answers their calls. It stands in for the real PersistentPerl
module: install one or the other, not both. L<CGI::SpeedyCGI> is the
same under its older name.

When a script's state ends depends on the mode it runs in
(L<Kamado::CGI>): in registry mode it lives as long as the worker (its
package variables are put back after each request, but a database handle
or a PersistentPerl object in a package scalar is kept, as the idiom
above needs); in perlrun mode and fork mode it ends with each request.

=head1 METHODS

=over 4

=item new

A new object (they all share the one state).

=item i_am_perperl

True when the script runs in Kamado's CGI runner (modes registry,
perlrun and fork); false under plain perl, mod_perl and in exec mode.

=item add_shutdown_handler(CODE)

Runs CODE when the script's state ends: in registry mode when the worker
ends (recycled after C<--max-requests>, C<--max-rss> or C<--max-age>,
stopped by TERM, replaced after HUP, retired when idle by autoscaling,
or after C<shutdown_next_time>), after its last request; not when it is
stopped at once (INT). In perlrun and fork mode, and outside Kamado, at
the end of the request, after the cleanups (the process, or the
script's compiled state, ends then). Handlers run in the order they were
added; one that dies is logged.

=item set_shutdown_handler(CODE)

The older API: CODE replaces the handlers added so far; returns the last
of them.

=item register_cleanup(CODE)

Runs CODE at the end of the request that registered it, after the
script and its END blocks.

=item shutdown_next_time

In registry and perlrun mode, the worker exits once this request is
answered (a new one replaces it) and the shutdown handlers run. In fork
mode and outside Kamado the process ends after each request anyway: it
does nothing.

=item shutdown_now

Ends the script at once, as C<exit> would; in registry and perlrun mode
the worker then exits once the response (what the script printed) is
sent. Does not return.

=item getgroupname

C<none>, PersistentPerl's default group.

=item setopt(NAME, VALUE), getopt(NAME)

Kept by NAME (any case) and returned (setopt returns the previous
value), without effect: Kamado's options govern its workers.

=back

=cut
