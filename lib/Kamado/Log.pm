package Kamado::Log;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();

# The one way Kamado writes to its error log. Each line names when, how
# bad, which process (its role and pid) and, inside a request, which
# request, so lines from many workers interleaved in one file can be
# told apart and matched with the access log.

my %LEVEL = (error => 0, warn => 1, notice => 2, info => 3, debug => 4);
# syslog's names, and the numbers journald reads from a "<N>" prefix
my %SYSLOG = (error => 'err', warn => 'warning', notice => 'notice', info => 'info', debug => 'debug');
my %SD = (error => 3, warn => 4, notice => 5, info => 6, debug => 7);
our @FACILITIES = (qw(auth authpriv cron daemon ftp kern lpr mail news syslog user uucp), map { "local$_" } 0 .. 7);
my $threshold = $LEVEL{info};
my $role = 'supervisor';
my $syslog;         # the facility, when lines go to syslog
my $journal;        # whether STDERR is systemd's journal; undef: not yet looked at
our $REQUEST_ID;    # the id of the request being served (Kamado::Loop sets it)

sub levels { sort { $LEVEL{$a} <=> $LEVEL{$b} } keys %LEVEL }

sub is_level { defined $_[1] && exists $LEVEL{ $_[1] } }

sub set_level {
    my ($class, $name) = @_;
    die "kamado: --log-level must be one of @{[ levels() ]}, not '$name'\n" unless $class->is_level($name);
    $threshold = $LEVEL{$name};
}

sub set_role { $role = $_[1] }
sub role     { $role }

sub enabled { $LEVEL{ $_[1] } <= $threshold }

# The name of the least severe level logged.
sub level { my %name = reverse %LEVEL; $name{$threshold} }

sub error  { shift->log(error  => @_) }
sub warn   { shift->log(warn   => @_) }
sub notice { shift->log(notice => @_) }
sub info   { shift->log(info   => @_) }
sub debug  { shift->log(debug  => @_) }

# Lines to syslog, with FACILITY (one of @FACILITIES), from now on; the
# socket is opened here, before any fork or privilege drop.
sub to_syslog {
    my ($class, $facility) = @_;
    require Sys::Syslog;
    Sys::Syslog::openlog('kamado', 'ndelay,pid', $facility);
    $syslog = $facility;
}

# Where STDERR points has changed (--error-log, USR1): whether it is the
# journal is looked at again.
sub stderr_changed { undef $journal }

# A message of several lines is logged as that many lines, each with the
# prefix, so that every line of the log can be parsed alone.
sub log {
    my ($class, $level, @message) = @_;
    return if $LEVEL{$level} > $threshold;
    local ($!, $@);    # (callers look at them after logging them)
    my $message = join '', @message;
    utf8::encode($message) if utf8::is_utf8($message);
    my $id = defined $REQUEST_ID ? " [$REQUEST_ID]" : '';
    my @lines = split /\n/, $message;
    @lines = ('') unless @lines;
    if ($syslog) {
        # (a line syslog refuses goes to STDERR: logging never kills a process)
        return if eval { Sys::Syslog::syslog($SYSLOG{$level}, '%s', "[$level] $role$id: $_") for @lines; 1 };
    }
    $journal //= _stderr_is_journal();
    # journald stamps each line itself, and takes its priority from "<N>"
    my $start = $journal ? "<$SD{$level}>" : timestamp() . ' ';
    my $pid = $$;
    print STDERR join '', map { "$start\[$level] $role $pid$id: $_\n" } @lines;
}

# script_stderr(SCRIPT, ID, TEXT): what the CGI script SCRIPT wrote to
# its STDERR, serving the request ID (undef: none, as when it is preloaded),
# each line prefixed with the script's path and the request id, as Apache
# prefixes a script's lines with its path: not Kamado's own line (no level),
# but one that says whose it is. Written whole, in one print.
sub script_stderr {
    my ($class, $script, $id, $text) = @_;
    return unless length $text;
    $text .= "\n" unless $text =~ /\n\z/;
    my $prefix = defined $id ? "$script [$id]: " : "$script: ";
    $text =~ s/^/$prefix/mg;
    print STDERR $text;
}

# $JOURNAL_STREAM names the device and inode of the stream systemd
# connected to the journal: STDERR is the journal when it is that file.
sub _stderr_is_journal {
    my ($dev, $ino) = ($ENV{JOURNAL_STREAM} // '') =~ /\A(\d+):(\d+)\z/ or return 0;
    my @st = stat STDERR or return 0;
    return $st[0] == $dev && $st[1] == $ino ? 1 : 0;
}

# ISO 8601 local time with milliseconds and the UTC offset.
sub timestamp {
    my ($s, $us) = Time::HiRes::gettimeofday();
    my @t = localtime $s;
    my $z = POSIX::strftime('%z', @t);
    $z =~ s/(\d\d)\z/:$1/;
    return POSIX::strftime('%Y-%m-%dT%H:%M:%S', @t) . sprintf('.%03d', $us / 1000) . $z;
}

# The start of the request ids of a process that serves requests: the
# time (to the microsecond) and its pid, so that no two processes, in
# this run or another, share one; a counter follows it.
sub request_id_prefix {
    my ($s, $us) = Time::HiRes::gettimeofday();
    return sprintf '%08x%05x-%d-', $s, $us, $$;
}

1;
__END__

=head1 NAME

Kamado::Log - the error log's lines: time, level, process, request

=head1 SYNOPSIS

    use Kamado::Log;
    Kamado::Log->set_role('worker');
    Kamado::Log->set_level('notice');
    Kamado::Log->warn("can't remove unix socket $path: $!");

    # 2026-11-25T20:41:03.123+00:00 [warn] worker 1234: can't remove ...

=head1 DESCRIPTION

Every part of Kamado logs through this module. A line is

    TIMESTAMP [LEVEL] ROLE PID [REQUEST-ID]: MESSAGE

TIMESTAMP is ISO 8601 local time with milliseconds and the UTC offset.
ROLE is the process's part: C<supervisor>, C<generation> or C<worker>
(with C<--workers 0>, the one process is a C<worker>), set where each is
forked. The request id appears while C<$Kamado::Log::REQUEST_ID> is set:
the worker's event loop sets it to the request's C<kamado.request_id>
(see L<Kamado/PSGI>) when it hands the request over, and clears it when
it waits for the next one, so every line about a request carries it. A message of several lines
becomes several lines, each with the prefix.

Levels, most severe first: C<error> (a request or a process failed),
C<warn> (something was cut short or killed), C<notice> (what an operator
did or should know: the server is ready, HUP, USR1, TTIN), C<info>
(generations and workers coming and going), C<debug> (each worker's
start); lines less severe than the level set (C<--log-level>, default
C<info>) are dropped.

Lines go to STDERR, which C<--error-log FILE> points at a file. When
STDERR is systemd's journal (C<$JOURNAL_STREAM> names it, as systemd
sets it for a service whose output goes to the journal), a line starts
with C<E<lt>NE<gt>>, its syslog priority, in place of the timestamp: the
journal records the time itself and takes the priority from it
(C<journalctl -p warning> works). With C<--error-log syslog> or
C<syslog:FACILITY> (default C<daemon>), lines go to syslog through
L<Sys::Syslog> as C<kamado[PID]: [LEVEL] ROLE [REQUEST-ID]: MESSAGE>
with the level as their priority; the socket is opened at start, before
privileges are dropped.

What an application writes, its own C<warn>, C<psgi.errors>, and what a
CGI script writes to STDERR, is its own: it reaches STDERR (so the
C<--error-log> file, or the journal) as it was written, without this
prefix, as under Starman or in Apache's error log from a mod_perl
handler. With syslog, STDERR stays where kamado was started with it.

=cut
