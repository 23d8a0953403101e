package Kamado::AccessLog;
use 5.024;
use strict;
use warnings;

use Apache::LogFormat::Compiler;
use Kamado::Log;
use Kamado::LogFile;
use Kamado::Options ();
use POSIX ();
use Time::HiRes ();

# --access-log: one line per request in an Apache LogFormat, checked and
# compiled once by Apache::LogFormat::Compiler. Each worker's event loop
# keeps the lines in a buffer of its own (xs/logline.c) and writes them with
# one write(2) when the buffer would pass PIPE_BUF (so a line never
# tears, even on a pipe), when the oldest has waited a second, when the
# worker idles, on USR1 and at exit; it makes the lines itself
# (src/proto/kd_logfmt.c) for every format but those with %{FORMAT}t, which the
# compiler's code makes.

my @MONTH = qw(Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec);

my %NICKNAME = (
    combined => '%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"',
    common   => '%h %l %u %t "%r" %>s %b',
);

# What Apache has and the compiler lacks.
my %CHAR = (
    a => sub { $_[0]{REMOTE_ADDR} },                 # client address
    B => sub { $_[2] // 0 },                         # %b, with 0 for none
    L => sub { $_[0]{'kamado.request_id'} },         # the request log id
);
my %BLOCK = (
    e => sub { $_[1]{ $_[0] } },                     # %{NAME}e: the PSGI env's
);

# The compiler's directives that write a value as it is, each through
# _safe or _string (the request line's protocol comes from the client
# when the loop answers a malformed request itself).
my %ESCAPED = (
    h => q!_string($_[ENVS]->{REMOTE_ADDR} || undef)!,
    u => q!_string($_[ENVS]->{REMOTE_USER} || undef)!,
    r => q!_safe($_[ENVS]->{REQUEST_METHOD}) . " " . _safe($_[ENVS]->{REQUEST_URI}) . " " . _safe($_[ENVS]->{SERVER_PROTOCOL})!,
    v => q!_string($_[ENVS]->{SERVER_NAME} || undef)!,
    V => q!_string($_[ENVS]->{HTTP_HOST} || $_[ENVS]->{SERVER_NAME} || undef)!,
    p => q!_safe($_[ENVS]->{SERVER_PORT})!,
    H => q!_safe($_[ENVS]->{SERVER_PROTOCOL})!,
);

# new(file => PATH or '-', format => LogFormat or nickname, owner => [uid,
# gid] given a file created here, as Kamado::LogFile does); dies with one
# line naming the option at fault.
sub new {
    my ($class, %args) = @_;
    my $format = $args{format} // Kamado::Options::default('access_log_format');
    my $self = bless {
        path   => $args{file},
        owner  => $args{owner},
        format => $NICKNAME{$format} // $format,
        second => -1,       # the second whose %t text is in time_text
    }, $class;
    # the compiler's code, and whether it takes %t's text (else the time)
    @$self{qw(line takes_text)} = $class->compile($format);
    my $why = $self->_open;
    die "kamado: can't open --access-log $args{file}: $why\n" if $why;
    return $self;
}

# A worker's event loop (Kamado::Loop) keeps the lines from now on, and
# makes them itself when it can (kd_logfmt.c makes every directive this
# module knows but %{FORMAT}t): true then, and the worker calls its
# log_request; else it calls request().
sub attach {
    my ($self, $loop) = @_;
    $self->{loop} = $loop;
    return $self->{native} = $loop->access_log(fileno $self->{fh}, $self->{format});
}

# At the worker's end (given its listeners, Kamado::Listener): the
# loop's answers are logged, and what is buffered goes out.
sub detach {
    my ($self, $listeners) = @_;
    $self->idle($listeners);
    delete $self->{loop};
}

# The worker idles (or the loop has answers for it): the same.
sub idle {
    my ($self, $listeners) = @_;
    $self->answers($listeners);
    $self->flush;
}

# The requests the loop answered without the worker (a malformed head,
# 408, 413, a pool's 503): their env is what the loop knows, the
# listener's and the client's address and the request line.
sub answers {
    my ($self, $listeners) = @_;
    my @answers = $self->{loop}->take_answers or return;
    my $lost = ref $answers[-1] ? 0 : pop @answers;
    for my $answer (@answers) {
        my ($status, $bytes, $listener, $addr, $port, $line, $time) = @$answer;
        # (a line that is not three words is logged whole, as the method)
        my ($method, $uri, $protocol) = $line =~ /\A(\S+) (\S+) (\S+)\z/ ? ($1, $2, $3) : ($line, '', '');
        my ($path, $query) = (split(/\?/, $uri, 2), '', '');
        my %env = (
            $listeners->[$listener]->env_template->%*,
            REMOTE_ADDR => $addr, REMOTE_PORT => $port, REQUEST_METHOD => $method, REQUEST_URI => $uri,
            SERVER_PROTOCOL => $protocol, PATH_INFO => $path, QUERY_STRING => $query,
        );
        $self->{loop}->log_line($self->line(\%env, $status, [], $bytes, $time, $time));
    }
    Kamado::Log->warn("--access-log: $lost requests the server answered itself were not logged (too many at once)")
        if $lost;
}

# The request just served, when the loop cannot make its line; or, given
# (status, headers, body bytes, start), one that ends after others were
# served (an async worker's stream).
sub request {
    my ($self, $env, @record) = @_;
    my ($status, $headers, $bytes, $start, $now) =
        @record ? (@record, Time::HiRes::time()) : $self->{loop}->response_record;
    # no head went out: the body could not be read from a client gone
    $self->{loop}->log_line($self->line($env, $status || 400, $headers, $bytes, $start, $now));
}

# The line (with its newline) of a request: its PSGI env, the status and
# headers sent, the body bytes sent, when its head was complete and when
# it ended (epoch seconds).
sub line {
    my ($self, $env, $status, $headers, $bytes, $start, $end) = @_;
    my $time = !$self->{takes_text} ? $start
        : int($start) == $self->{second} ? $self->{time_text} : $self->_time_text(int $start);
    return $self->{line}->($env, [$status, $headers // []], $bytes || undef, int(($end - $start) * 1_000_000), $time)
        . "\n";
}

# The code that makes a line of FORMAT (a LogFormat string or nickname),
# and whether it takes %t's text in place of the time (_recompile).
sub compile {
    my ($class, $format) = @_;
    $format //= Kamado::Options::default('access_log_format');
    $format = $NICKNAME{$format} if exists $NICKNAME{$format};
    my $compiler = eval {
        local $SIG{__WARN__} = sub { die @_ };
        local @Apache::LogFormat::Compiler::char_handler{ keys %ESCAPED } = values %ESCAPED;
        Apache::LogFormat::Compiler->new($format, char_handlers => \%CHAR, block_handlers => \%BLOCK);
    } // do {
        (my $why = $@) =~ s/\n.*//s;
        $why =~ s/ at (?:\(eval \d+\)|\S+) line \d+\.?\z//;
        die "kamado: --access-log-format '$format': $why\n";
    };
    my ($sub, $takes_text) = _recompile($compiler->code);
    return $sub ? ($sub, $takes_text) : ($compiler->code_ref, 0);
}

# The compiler's code, compiled again with two changes. Its values go
# through _safe and _string below, which escape " and \ as Apache does
# (the compiler's leave them, and a quote in a header would end its field
# early). And, when nothing else uses its preamble (%{FORMAT}t does),
# that is left out: localtime(), a strftime and a sprintf for %t, the
# bulk of its cost; the code then takes %t's text where it took the time,
# and line() makes that text once a second. The code stays the
# compiler's own (its helpers, its constants: its package), our handlers
# reached under the names it gives them; anything unexpected in it keeps
# the compiler's sub as it is.
sub _recompile {
    my ($code) = @_;
    my ($rest) = $code =~ /\A\s*sub \{\s*\$_\[TIME\] = time\(\) if ! defined \$_\[TIME\];.*?\bmy \$t = sprintf '[^']*',[^;]*;(.*)\z/s;
    my $text = defined $rest && $rest !~ /\@lt|\$lt\[|\$c->|\@abbr|\$abbr\[/;
    $code = 'sub { my $t = $_[TIME];' . $rest if $text;
    $code =~ s/\b(_safe|_string)\(/Kamado::AccessLog::$1(/g;
    my ($extra_char_handlers, $extra_block_handlers) = (\%CHAR, \%BLOCK);
    my ($c, @abbr) = ({}, @MONTH);    # what the preamble uses, when kept
    my $sub = eval "package Apache::LogFormat::Compiler; $code" or return;    ## no critic (StringyEval)
    return ($sub, $text ? 1 : 0);
}

# A value for the log: as it is when it is printable ASCII without " or
# \ (the usual case, one tr), else escaped as Apache's ap_escape_logitem.
sub _safe {
    my ($s) = @_;
    return '' unless defined $s;
    return $s if $s !~ tr/\x20\x21\x23-\x5b\x5d-\x7e//c;
    $s =~ s/(["\\])/\\$1/g;
    $s =~ s/([^\x20-\x7e])/sprintf '\\x%02x', ord $1/ge;
    return $s;
}

# The same, with - for a value that is missing or empty.
sub _string {
    my ($s) = @_;
    return '-' if !defined $s || $s eq '';
    return _safe($s);
}

# Returns why it failed, or '' when {fh} is the file.
sub _open {
    my ($self) = @_;
    if ($self->{path} eq '-') {
        open my $out, '>&', \*STDOUT or return "$!";
        $self->{fh} = $out;
        return '';
    }
    my ($fh, $why) = Kamado::LogFile->open_append($self->{path}, owner => $self->{owner});
    return $why unless $fh;
    $self->{fh} = $fh;
    return '';
}

# %t's text for a second, as Apache writes it (English month names
# whatever the locale), kept until the next second.
sub _time_text {
    my ($self, $second) = @_;
    my @t = localtime $second;
    $self->{second} = $second;
    return $self->{time_text} = sprintf '%02d/%s/%04d:%02d:%02d:%02d %s', $t[3], $MONTH[ $t[4] ], $t[5] + 1900,
        @t[2, 1, 0], POSIX::strftime('%z', @t);
}

# Writes what the worker's loop buffered (it does, by itself, when its
# buffer is full or a line has waited a second): when the worker idles,
# on USR1, at exit. A failed write is logged once until one succeeds.
sub flush {
    my ($self, $fd) = @_;
    my $loop = $self->{loop} or return 1;
    if ($loop->log_flush($fd // -1)) {
        $self->{failing} = 0;
        return 1;
    }
    Kamado::Log->error("can't write to --access-log $self->{path}: $!") unless $self->{failing}++;
    return 0;
}

# USR1, in every process that holds the file (the supervisor and the
# generation, for the workers they fork later): the path is opened again
# (after logrotate moved the file away); a worker writes what it buffered
# to the old file first. On failure the old file stays in use.
sub reopen {
    my ($self) = @_;
    return $self->flush if $self->{path} eq '-';
    my $old = $self->{fh};
    if (my $why = $self->_open) {
        Kamado::Log->error("USR1: can't reopen --access-log $self->{path}: $why; still logging to the old file");
        $self->{fh} = $old;
        return $self->flush;
    }
    my $ok = $self->flush(fileno $self->{fh});
    close $old;
    return $ok;
}

sub path { $_[0]{path} }

1;
__END__

=head1 NAME

Kamado::AccessLog - C<--access-log>: one line per request, buffered

=head1 SYNOPSIS

    # before forking (and before --user drops root)
    my $log = Kamado::AccessLog->new(file => 'access.log', format => 'combined');

    # in a worker
    my $native = $log->attach($loop);    # a Kamado::Loop
    ...                                  # a request served, then:
    $native ? $loop->log_request($env) : $log->request($env);
    $log->answers(\@listeners) if $answers;   # (next_request's 4th value)
    $log->idle(\@listeners);                  # when idle
    $log->detach(\@listeners);                # at exit

    $log->reopen;    # USR1, in every process

=head1 DESCRIPTION

Formats each request with an Apache C<LogFormat> string, or one of the
nicknames C<combined> (the default) and C<common>.
L<Apache::LogFormat::Compiler> checks it, once; besides its directives
it knows C<%a> (client address), C<%B> (body bytes, C<0> for none),
C<%L> (the request id, C<kamado.request_id> in the env, C<-> when
absent) and C<%{NAME}e> (a key of the PSGI env). An unknown directive
stops the start with one line naming C<--access-log-format>.

The worker's L<Kamado::Loop> makes the lines (F<src/proto/kd_logfmt.c>) from
the env and what it recorded of the response: the status and headers
sent and the body bytes the socket took (for a client that went away,
what it was sent). A format with C<%{FORMAT}t> is made by the compiler's
code instead, run again with values escaped as Apache does and, without
C<%{FORMAT}t>, a C<%t> made once a second. Every value from the request,
on every path (the requests the loop answers itself included, whose
request line can be anything a client sent), is escaped as Apache's:
C<"> and C<\> with a backslash, other bytes outside printable ASCII as
C<\xhh>.

The loop keeps the lines in a buffer of at most 4096 bytes (C<PIPE_BUF>,
so a write of it is never split on a pipe) and writes them when the next
line would not fit and when the oldest has waited a second; C<flush>
writes the rest (the worker calls it when it idles, on USR1 and at exit).
A process forked from the one that buffered never writes its parent's
lines.

C<file> C<-> is standard output; other files are opened for appending,
before C<--user> drops privileges, and C<reopen> opens the path again.

=cut
