package Kamado::CGI::Process::Zygote;
use 5.024;
use strict;
# (no `use warnings` here, nor Kamado.pm, which has it: warnings.pm is a
# third of the zygote's memory, which every fork copies and every child's
# exit scans; a script that wants it loads it itself)


# Mode "fork", the process side: loaded with -M by a perl that runs a CGI
# script as its main program,
#
#     perl [the script's #! switches] -MKamado::CGI::Process::Zygote=FD script.cgi
#
# so perl itself compiles the script exactly as under CGI (package main,
# __END__ and DATA, #! switches, named subs seeing file-scoped lexicals).
# Then, instead of running it, the INIT block below serves requests from
# the worker on socket FD: for each, it forks, and the child returns from
# INIT into the compiled main program with the request's STDIN, STDOUT,
# STDERR and %ENV, runs it once and exits, as a CGI process would.
# Nothing a request does (globals, exit, END blocks, %SIG, alarm, cwd,
# umask, open handles) outlives it.

my $socket_fd;
my $dbi;    # fork mode's kept database handles (Kamado::DBI::Lend)

# import(FD, DBI_PING_INTERVAL, LOG_LEVEL): the second, when given,
# turns on the database handles lent to each child (before the script
# compiles, so that its `use DBI` goes through Kamado::DBI), which log
# what they do at the server's --log-level
sub import {
    my ($class, $fd, $ping, $level) = @_;
    $socket_fd = $fd;
    if (defined $ping && length $ping) {
        require Kamado::DBI::Lend;
        Kamado::DBI::Lend::init($ping, $level);
        $dbi = 1;
    }
    # (PersistentPerl's i_am_perperl: the script runs in Kamado)
    $PersistentPerl::KAMADO = 1;
    # what the script writes to STDERR while it compiles (perl's errors and
    # warnings, its BEGIN blocks' warn) goes to the server's log with its
    # path, as the lines of its runs do (Kamado::Log::script_stderr)
    tie *STDERR, 'Kamado::CGI::Process::Zygote::Stderr', $0 if defined $fd;
}

INIT { _serve() if defined $socket_fd }

my $child;         # true in a forked child, the CGI process
my $quiet_exit;    # Kamado's XS is loaded

# The last END block to run (compiled before the script's, and END blocks
# run last compiled first): with everything perl's exit does that shows
# done -- the END blocks, and DESTROY if one would be called, buffered
# output written -- the child leaves without global destruction, whose
# copy-on-write faults are a sixth of a hello world's cost. When anything
# could show (an object with a DESTROY, a pipe to a process, an END block
# still to run...), it returns and perl exits as usual (xs/CGIProcessZygote.xsh says
# what is checked).
END { _exit_if_quiet($?, $dbi && $INC{'Kamado/DBI.pm'} ? Kamado::DBI::quiet_destructors() : undef) if $child && $quiet_exit }

sub _serve {
    untie *STDERR if tied *STDERR && ref tied *STDERR eq 'Kamado::CGI::Process::Zygote::Stderr';
    open my $sock, '+<&=', $socket_fd or die "Kamado::CGI::Process::Zygote: fd $socket_fd: $!
";
    # its XS (recv_with_fds, _exit_if_quiet), loaded once the script is
    # compiled: its compile sees no more than before
    _load_xs();
    $quiet_exit = 1;
    # STDIN of a request without a body: opened once, dup2'd by each child
    # (the worker sends a descriptor only for a body)
    open my $null, '<', '/dev/null' or die "Kamado::CGI::Process::Zygote: /dev/null: $!\n";
    my $data = _data_handles();
    # children are reaped by the kernel; the child gets back the script's
    # own disposition when it leaves this sub (only what the zygote changed
    # is undone: a handler the script set in a BEGIN block stays, as under
    # CGI, and resetting all of %SIG cost ~270 syscalls a request)
    # (with lent database handles, what a child said on its report pipe
    # before it closed tells whether they can be lent again: Kamado::DBI::Lend)
    local $SIG{CHLD} = 'IGNORE';
    # compiled: say so, with the files the script loaded, so that the
    # worker compiles it again when one of its own changes
    # (Kamado::CGI::Mode::Fork::_private_files picks them)
    syswrite $sock, join("\t", 'ready', map { "$_=$INC{$_}" } grep { defined $INC{$_} && !ref $INC{$_} } keys %INC)
        . "\n";
    # (the connections the script's first child will ask for, made now:
    # it borrows them, as every child after it)
    Kamado::DBI::Lend::predict() if $dbi;
    while (1) {
        # a request, in one message (Kamado::CGI::Mode::Fork::_send): the
        # environment, STDOUT, STDERR, and the body if there is one
        # (meanwhile what the last child left on a borrowed database
        # connection is undone as soon as it ends: Kamado::DBI::Lend)
        Kamado::DBI::Lend::wait_for_request($socket_fd) if $dbi;
        my ($env, @fds) = recv_with_fds($socket_fd) or last;
        last if @fds < 2;
        my $body = @fds > 2;
        my $lend = $dbi ? Kamado::DBI::Lend::before_fork() : undef;
        my $pid = fork;
        if (!defined $pid) {
            _close_fds(@fds);
            syswrite $sock, "0\n";
            next;
        }
        if ($pid) {
            _close_fds(@fds);
            Kamado::DBI::Lend::parent($lend, $pid) if $lend;
            syswrite $sock, "$pid\n";
            next;
        }
        # the child: becomes the CGI process
        close $sock;
        Kamado::DBI::Lend::child($lend) if $lend;
        _become_child($body ? $fds[2] : fileno $null, @fds[0, 1]);
        close $null;
        # (NAME, VALUE, ... joined by NULs: no NUL is in an environment)
        %ENV = ${^TAINT} ? _taint_env($env) : split /\0/, $env, -1;
        srand;                                  # not the zygote's sequence
        $^T = time;
        _reopen_data($data);
        $child = 1;
        return;                                 # into the main program
    }
    _exit_now(0);
}

# Under -T, %ENV as perl makes it from a CGI process's environment: the
# values tainted (the message is), the names not. %ENV keeps each
# element's name as the SV it was stored with, and reads it whenever the
# element is set: a tainted name would taint every value stored under
# it, so the script's own `$ENV{PATH} = $1` could never untaint PATH.
sub _taint_env {
    my @env = split /\0/, $_[0], -1;
    ($env[$_]) = $env[$_] =~ /\A(.*)\z/s for grep { !($_ & 1) } 0 .. $#env;
    return @env;
}

# Kamado's XS without Kamado.pm, and without DynaLoader: XSLoader finds
# a shared object beside the .pm that asks for it, and falls back to
# DynaLoader, which brings Config and warnings (660 KB of memory that
# every fork copies) when it is elsewhere, as in a build (blib/arch, not
# blib/lib). So it is asked from where the object is.
sub _load_xs {
    my ($arch) = grep { !ref && -e "$_/auto/Kamado/Kamado.so" } @INC
        or die "Kamado::CGI::Process::Zygote: Kamado's XS (auto/Kamado/Kamado.so) is not in \@INC\n";
    require XSLoader;
    eval qq{#line 1 "$arch/Kamado.pm"\npackage Kamado; XSLoader::load('Kamado'); 1} or die $@;
}

# DATA handles (of main, or of the package before __DATA__) share their
# file offset with every fork: each child reopens the script and seeks to
# where the data starts, so every request reads all of it.
sub _data_handles {
    my @found;
    no strict 'refs';
    my %seen;
    for my $pkg ('main', grep { s/::\z// } keys %main::) {
        next if $seen{$pkg}++;
        my $io = *{"${pkg}::DATA"}{IO} or next;
        defined fileno $io or next;
        push @found, [$pkg, tell $io, join '', map { ":$_" } PerlIO::get_layers($io)];
    }
    return \@found;
}

sub _reopen_data {
    my ($data) = @_;
    no strict 'refs';
    for (@$data) {
        my ($pkg, $offset, $layers) = @$_;
        open my $fh, "<$layers", $0 or next;
        seek $fh, $offset, 0;
        # (by name: the stash's own glob, the one the script's code reads)
        *{"${pkg}::DATA"} = $fh;
    }
}

package Kamado::CGI::Process::Zygote::Stderr;

# STDERR while the script compiles in the zygote: each line with the
# script's path before it (perl's own warnings and errors come through a
# tied STDERR too), written to the descriptor STDERR was.
sub TIEHANDLE {
    my ($class, $script) = @_;
    open my $raw, '>&', \*STDERR or return undef;
    return bless { raw => $raw, script => $script, buf => '' }, $class;
}

sub PRINT {
    my $self = shift;
    $self->{buf} .= join defined $, ? $, : '', @_;
    $self->{buf} .= $\ if defined $\;
    if ($self->{buf} =~ s/\A(.*\n)//s) {
        (my $lines = $1) =~ s/^/$self->{script}: /mg;
        syswrite $self->{raw}, $lines;
    }
    return 1;
}
sub PRINTF { my $self = shift; my $format = shift; $self->PRINT(sprintf $format, @_) }
sub WRITE  { my ($self, $buf, $len, $offset) = @_; $self->PRINT(substr $buf, $offset // 0, $len); $len }
sub FILENO { fileno $_[0]{raw} }
sub BINMODE { 1 }
sub CLOSE  { 1 }

# (what is left without a newline, when the zygote unties it or dies compiling)
sub UNTIE   { $_[0]->PRINT("\n") if length $_[0]{buf} }
sub DESTROY { $_[0]->PRINT("\n") if length $_[0]{buf} }

1;
__END__

=head1 NAME

Kamado::CGI::Process::Zygote - a CGI script compiled once, run in a fork per request

=cut
