package Kamado::DBI::Lend;
use 5.024;
use strict;
# (no `use warnings`: loaded into fork mode's zygote before the script,
# which must stay small; see Kamado::CGI::Process::Zygote)

# Fork mode's kept database handles. A zygote (Kamado::CGI::Process::Zygote) runs
# its children one after another; the connections live in the zygote
# and each child in turn borrows them:
#
# - once the script is compiled, the zygote connects as its DBI->connect
#   calls will, when their arguments can be read from the compiled script
#   (predict): its first child borrows as the ones after it do;
# - before a fork, the zygote marks its clean handles as lent (when no
#   earlier child still holds them); the child keeps them (Kamado::DBI
#   drops every other handle it inherits) and DBI->connect hands them out;
# - at its end (this module's END block, after the script's own) the
#   child reports on a pipe: "new ARGS" for each connection it made
#   itself, "driver NAME" for each driver it loaded, then "end";
# - the zygote, waiting for its next request, watches the pipes too, and
#   reads the report of each child as soon as its pipe closes (the kernel
#   reaps the children): what a child left on a borrowed connection (a
#   transaction, LOCK TABLES, GET_LOCK) goes when the child ends, as a CGI
#   process's exit ends its connections, not when the script is next
#   requested, which may be hours later while other requests wait on the
#   locks. A child that said "end" ran its END blocks: it left its
#   borrowed connections between two commands, and the zygote resets
#   them (Kamado::DBI::Reset: the transaction, the server session) and
#   lends them again. Otherwise (killed mid-query, exec, _exit) a
#   borrowed connection may be in the middle of a reply: the zygote
#   closes its socket without a word on it and connects again. The
#   drivers are loaded and the new connections made in the zygote, so
#   that the next child borrows them.
#
# While a child that borrowed has not closed its pipe, the next child
# borrows nothing (it connects on its own): a connection is never used by
# two processes at once. A process the child left running (a script's
# fork in the background) holds the pipe too: a child that said "end" and
# no longer exists has ended all the same.

use constant EXIT_WAIT => 0.05; # seconds a child that reported its end may take to exit
use constant GONE_POLL => 0.1;  # seconds between looks whether such a child has gone
use constant PREDICT_WAIT => 10; # seconds the reading of a script's connects may take
use constant PREDICT_MAX => 4;   # connections made on a prediction, at most (the first found)

my @loans;       # { pid, fh, keys => [..], buf }: children not yet reaped
my $report;      # in a child: the pipe to its zygote
my $child_pid;   # in a child: its pid (a grandchild reports nothing)
my (@new, %drivers);

# init(PING_INTERVAL, LOG_LEVEL): in the zygote, before the script compiles.
sub init {
    my ($interval, $level) = @_;
    $Kamado::DBI::PING_INTERVAL = $interval;
    $Kamado::DBI::LOG_LEVEL = $level if defined $level && length $level;
    $Kamado::DBI::REPORT = \&_note_new;
    require Kamado::DBI::Hook;
    Kamado::DBI::Hook::install();
}

# In the zygote, once the script is compiled: the connections its
# DBI->connect calls will ask for, read from its op tree
# (Kamado::DBI::Predict, in a child of the zygote, which sends them on a
# pipe as its children send theirs: B stays out of the zygote), made now,
# so that its first child borrows them instead of connecting on its own.
sub predict {
    return unless $INC{'DBI.pm'} && $INC{'Kamado/DBI.pm'};
    pipe(my $r, my $w) or return;
    my $pid = fork // return;
    if (!$pid) {
        close $r;
        my @lines = eval {
            local $SIG{__WARN__} = sub { };
            require Kamado::DBI::Predict;
            my @connects = Kamado::DBI::Predict::connects($0);
            map { _encode_prediction(@$_) } grep { defined } @connects[0 .. PREDICT_MAX - 1];
        };
        syswrite $w, join '', map { "$_\n" } @lines;
        require POSIX;
        POSIX::_exit(0);
    }
    close $w;
    my $buf = '';
    vec(my $rin = '', fileno $r, 1) = 1;
    while (1) {
        if (select(my $ready = $rin, undef, undef, PREDICT_WAIT) <= 0) {
            # (a script too large to read in time: nothing predicted)
            kill KILL => $pid;
            close $r;
            return;
        }
        sysread($r, $buf, 65536, length $buf) or last;
    }
    close $r;
    for my $line (split /\n/, $buf) {
        # (untainted, under -T: the script's own literals)
        my ($dsn, $user, $pass, $has_attr, @attr) =
            map { $_ eq '-' ? undef : /\A([0-9a-f]*)\z/ ? pack('H*', $1) : '' } split /\t/, $line, -1;
        Kamado::DBI::connect_predicted($dsn, $user, $pass, defined $has_attr ? {@attr} : undef);
    }
}

# DSN, USER, PASS, ATTR as a line of hex fields ("-": undef).
sub _encode_prediction {
    my ($dsn, $user, $pass, $attr) = @_;
    return join "\t", map { defined $_ ? unpack('H*', $_) : '-' } $dsn, $user, $pass,
        $attr ? ('', map { ($_, $attr->{$_}) } sort keys %$attr) : undef;
}

# In the zygote, between two requests: returns once the worker's socket
# FD has something to read, having acted on the report of each child
# that ended meanwhile.
sub wait_for_request {
    my ($fd) = @_;
    while (@loans) {
        my $rin = '';
        vec($rin, $_, 1) = 1 for $fd, map { fileno $_->{fh} } @loans;
        # (a child that said its end, its pipe held by a process it left:
        # whether it has gone is looked at now and then)
        my $poll = (grep { $_->{buf} =~ /^end$/m } @loans) ? GONE_POLL : undef;
        my $n = select(my $ready = $rin, undef, undef, $poll);
        # (Errno only then: the zygote stays small)
        next if $n < 0 && do { my $err = $! + 0; require Errno; $err == Errno::EINTR() };
        return if $n < 0 || $n > 0 && vec($ready, $fd, 1);
        _settle();
    }
}

# In the zygote, before a fork: what earlier children did is acted on;
# returns the pipe for the next child's report, having marked what it may
# borrow.
sub before_fork {
    _settle();
    # (the children's connections, reset when they came back, answered)
    Kamado::DBI::begin_request() if $INC{'Kamado/DBI.pm'};
    pipe(my $r, my $w) or return undef;
    %Kamado::DBI::LENT = ();
    if ($INC{'Kamado/DBI.pm'} && !grep { $_->{keys}->@* } @loans) {
        $Kamado::DBI::LENT{ $_->{key} } = $$ for Kamado::DBI::lendable();
    }
    return [$r, $w];
}

sub parent {
    my ($pipe, $pid) = @_;
    close $pipe->[1];
    push @loans, { pid => $pid, fh => $pipe->[0], keys => [keys %Kamado::DBI::LENT], buf => '' };
    %Kamado::DBI::LENT = ();
}

sub child {
    my ($pipe) = @_;
    close $pipe->[0];
    close $_->{fh} for @loans;
    @loans = ();
    $report = $pipe->[1];
    $child_pid = $$;
    @new = ();
    %drivers = ();
}

# (Kamado::DBI's REPORT: a connection made in the child, for the zygote
# to make its own)
sub _note_new {
    my ($e) = @_;
    $drivers{ $e->{args}[0] } = 1;
    return unless $report && $e->{reset}->keeps && !$e->{tls};
    my ($driver, $dsn, $user, $pass, $attr) = $e->{args}->@*;
    # (an attribute that is a reference cannot be sent: not lent)
    return if grep { ref $attr->{$_} && !$Kamado::DBI::PER_CALL{$_} } keys %$attr;
    my %plain = map { ref $attr->{$_} ? () : ($_ => $attr->{$_} // '') } keys %$attr;
    push @new, join "\t", map { unpack 'H*', $_ // '' } $driver, $dsn, $user, $pass, %plain;
}

END { _child_end() if $report && $child_pid == $$ }

sub _child_end {
    # (a predicted connection it borrowed: whether its DBI->connect asked for it)
    my @used = $INC{'Kamado/DBI.pm'} ? map { "used\t$_" } Kamado::DBI::predictions_used() : ();
    my @lines = ((map { "new\t$_" } @new), (map { "driver\t" . unpack('H*', $_) } sort keys %drivers), @used, 'end');
    syswrite $report, join('', map { "$_\n" } @lines);
    close $report;
    undef $report;
}

# Acts on what each child that has gone said. A child is gone when its
# report pipe is closed (the kernel reaps it at once: the worker waits
# for its process group to go, and a zombie would hold it); one that said
# its end and is about to close is given EXIT_WAIT seconds; one that said
# its end and no longer exists, its pipe held by a process it left
# running, is gone too.
sub _settle {
    my @open;
    for my $loan (@loans) {
        my $open = _read($loan, 0);
        $open = _read($loan, EXIT_WAIT) && kill(0, $loan->{pid}) if $open && $loan->{buf} =~ /^end$/m;
        if ($open) {
            push @open, $loan;
            next;
        }
        close $loan->{fh};
        _ended($loan);
    }
    @loans = @open;
}

# Reads what the child wrote, waiting at most WAIT seconds for more;
# false once the pipe is closed.
sub _read {
    my ($loan, $wait) = @_;
    vec(my $rin = '', fileno $loan->{fh}, 1) = 1;
    while (select(my $r = $rin, undef, undef, $wait) > 0) {
        my $n = sysread($loan->{fh}, $loan->{buf}, 65536, length $loan->{buf});
        return 0 unless $n;
    }
    return 1;
}

sub _ended {
    my ($loan) = @_;
    my (@new_args, @driver, %used);
    my $clean = $loan->{buf} =~ /^end$/m;
    for (split /\n/, $loan->{buf}) {
        my ($word, @f) = split /\t/;
        $used{$1} = 1 if $word eq 'used' && ($f[0] // '') =~ /\A(\d+)\z/;
        # (from a child of the script, whose code could write anything: untainted, checked)
        @f = map { /\A([0-9a-f]*)\z/ ? pack('H*', $1) : '' } @f;
        push @new_args, \@f if $word eq 'new';
        push @driver, $1 if $word eq 'driver' && $f[0] =~ /\A(\w+)\z/;
    }
    return unless $loan->{keys}->@* || @driver || @new_args;
    require DBI;
    Kamado::DBI::returned($clean, \%used, $loan->{keys}->@*);
    eval { DBI->install_driver($_) } for @driver;
    for my $args (@new_args) {
        my ($driver, $dsn, $user, $pass, %attr) = @$args;
        Kamado::DBI::connect_lendable($driver, $dsn, $user, $pass, \%attr);
    }
}

1;
__END__

=head1 NAME

Kamado::DBI::Lend - fork mode: the zygote's database connections lent to each child in turn

=head1 SYNOPSIS

    # in the zygote (Kamado::CGI::Process::Zygote), before the script compiles
    Kamado::DBI::Lend::init($ping_interval);
    # around each fork
    my $pipe = Kamado::DBI::Lend::before_fork();
    my $pid = fork;
    $pid ? Kamado::DBI::Lend::parent($pipe, $pid) : Kamado::DBI::Lend::child($pipe);

=head1 DESCRIPTION

See the comment at the top of the source, and L<Kamado::DBI>.

=cut
