package Kamado::Test;
use 5.024;
use strict;
use warnings;

# Starts real Kamado servers for tests and talks raw HTTP to them.
#
# The listening socket is bound here, on an ephemeral loopback port, and
# handed to script/kamado as systemd would (LISTEN_FDS, fd 3): no port
# race, and connections made before the workers are up simply wait in the
# backlog, so no test needs to sleep. Servers are stopped by PID.

use Exporter 'import';
use File::Spec;
use Fcntl ();
use File::Temp ();
use IO::Socket::IP;
use IO::Socket::UNIX;
use POSIX ();
use Scalar::Util ();
use Socket qw(SOMAXCONN);
use Time::HiRes ();

our @EXPORT_OK = qw(start_server raw_request read_response app_file eventually wait_until allow_errors);

# a server closing a connection must fail the test, not kill it
$SIG{PIPE} = 'IGNORE';

use File::Basename ();
# set at compile time: the 'use lib' below runs then
my $ROOT;
BEGIN { $ROOT = File::Spec->rel2abs(File::Spec->catdir(File::Basename::dirname(__FILE__), ('..') x 3)) }
use lib map { File::Spec->catdir($ROOT, 'blib', $_) } qw(lib arch);
use Kamado ();

# Polls $cond until it holds (1) or $timeout seconds (default 20) pass (0):
# for tests sequenced by what a server shows (its log, /proc, the
# scoreboard), not by sleeping.
sub eventually {
    my ($cond, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 20);
    until ($cond->()) {
        return 0 if Time::HiRes::time() > $deadline;
        Time::HiRes::sleep(0.01);
    }
    return 1;
}

# The same as a test: passes when $cond comes to hold, fails after 20 s.
sub wait_until(&$) {
    my ($cond, $what) = @_;
    return Test::More::ok(eventually($cond), $what);
}


# The server's [error] lines a test provokes on purpose, as patterns: when
# a server stops (or its object goes), any other [error] line in its log
# fails the test, as nginx-tests fail on [alert] lines. allow_errors(RE...)
# allows them for every server of the test file; start_server's
# allow_errors => [RE...] for that server only.
our @ALLOWED_ERRORS;
sub allow_errors { push @ALLOWED_ERRORS, @_ }

# servers not stopped by the test are stopped (and their logs checked)
# while Test::More can still count a failure
my %LIVE;

END {
    local $?;
    $_ && $_->{pid} && !exists $_->{status} && $_->stop for values %LIVE;
}

# Writes PSGI source to a temporary file; returns its path.
sub app_file {
    my ($source) = @_;
    my $tmp = File::Temp->new(SUFFIX => '.psgi', UNLINK => 1);
    print $tmp $source;
    close $tmp;
    push our(@KEEP), $tmp;    # the file lives as long as the test
    return $tmp->filename;
}

# start_server(app => SOURCE or app_file => PATH, args => [...],
#              unix => PATH) -> object with ->port, ->pid, ->stop
# self_bind => 1: no socket is handed over (nor LISTEN_FDS set); the
# server binds what its args say, and ->port is port => N (see free_port).
# prefix => [COMMAND]: runs it under another command (unshare, say).
# journal => 1: JOURNAL_STREAM names the server's STDERR, as systemd sets
# it when a service's output goes to the journal.
# allow_errors => [RE...]: [error] lines this server may log (see above).
sub start_server {
    my (%opt) = @_;
    # (no_app: the server is given no PSGI file, as with --cgi-bin alone)
    my $file = $opt{no_app} ? undef : $opt{app_file} // app_file($opt{app});
    my $listen = $opt{self_bind} ? undef : $opt{unix}
        ? IO::Socket::UNIX->new(Local => $opt{unix}, Listen => SOMAXCONN)
        : IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => SOMAXCONN, ReuseAddr => 1);
    die "Can't listen for the test server: $!" unless $listen || $opt{self_bind};
    my $stderr = File::Temp->new(UNLINK => 1);
    # command => [...] runs another front end (plackup -s Kamado) instead
    my @cmd = (($opt{prefix} // [])->@*, $^X, "-I$ROOT/blib/lib", "-I$ROOT/blib/arch", ($opt{command} // ["$ROOT/script/kamado"])->@*,
        '--workers', $opt{workers} // 1, ($opt{args} // [])->@*, $file // ());
    my $pid = fork // die "Can't fork: $!";
    if ($pid == 0) {
        # (kept to the exec: a handle that went would close a dup2'd fd 3)
        my $fd3;
        if ($listen) {
            # dup2 onto itself keeps close-on-exec set, so clear it explicitly
            POSIX::dup2(fileno $listen, 3) // POSIX::_exit(111) if fileno $listen != 3;
            open $fd3, '+<&=', 3 or POSIX::_exit(111);
            fcntl $fd3, Fcntl::F_SETFD(), 0 or POSIX::_exit(111);
            $ENV{LISTEN_FDS} = 1;
            $ENV{LISTEN_PID} = $$;
        } else {
            delete @ENV{qw(LISTEN_FDS LISTEN_PID SERVER_STARTER_PORT)};
        }
        open STDERR, '>&', $stderr or POSIX::_exit(111);
        open STDOUT, '>&', $stderr or POSIX::_exit(111);    # never hold prove's pipe
        # journal => 1: the server is told its STDERR is systemd's journal
        $ENV{JOURNAL_STREAM} = join ':', (stat STDERR)[0, 1] if $opt{journal};
        # a test that dies must not leave its server behind (kept across exec)
        Kamado::set_parent_death_signal(POSIX::SIGTERM());
        exec @cmd or POSIX::_exit(111);
    }
    my $self = bless {
        pid => $pid, listen => $listen, stderr => $stderr, unix => $opt{unix},
        allow_errors => $opt{allow_errors} // [],
        port => $opt{unix} ? undef : $listen ? $listen->sockport : $opt{port},
    }, __PACKAGE__;
    Scalar::Util::weaken($LIVE{ Scalar::Util::refaddr($self) } = $self);
    $self->wait_ready unless $opt{no_wait};
    return $self;
}

sub port { $_[0]{port} }
sub pid  { $_[0]{pid} }

# Waits until the supervisor says it accepts (its first log line).
sub wait_ready {
    my ($self, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 20);
    while (Time::HiRes::time() < $deadline) {
        return 1 if $self->log =~ /accepting connections/;
        die "kamado exited early:\n" . $self->log if waitpid($self->{pid}, POSIX::WNOHANG()) > 0;
        Time::HiRes::sleep(0.02);
    }
    die "kamado did not start:\n" . $self->log;
}

# The pids of the workers, from /proc: the supervisor's grandchildren, under
# the generation that serves (or under each, while one replaces another),
# but the template they are forked from (see template) and what a worker
# that crashed leaves to finish its other connections.
sub workers {
    my ($self) = @_;
    my ($pids, $name) = _under_generations($self);
    return grep { $name->{$_} ne 'kamado template' && $name->{$_} ne 'kamado finisher' } @$pids;
}

# The pid of each generation's template (Kamado::Prefork::Template).
sub templates {
    my ($self) = @_;
    my ($pids, $name) = _under_generations($self);
    return grep { $name->{$_} eq 'kamado template' } @$pids;
}

# The generations' children, and pid => name
sub _under_generations {
    my ($self) = @_;
    my ($kids, $name) = _children();
    return ([map { ($kids->{$_} // [])->@* } ($kids->{ $self->{pid} } // [])->@*], $name);
}

# The pids of the generation processes (see Kamado::Supervisor).
sub generations {
    my ($self) = @_;
    return ((_children())[0]->{ $self->{pid} } // [])->@*;
}

# parent pid => [child pids], for every process, from one read of /proc;
# and pid => its name (comm: what $0 set, cut to 15 bytes)
sub _children {
    my (%kids, %name);
    for my $stat (glob '/proc/[0-9]*/stat') {
        open my $fh, '<', $stat or next;
        my $line = <$fh> // next;
        my ($pid, $comm, $ppid) = $line =~ /^(\d+) \((.*)\) \S+ (\d+)/s or next;
        push $kids{$ppid}->@*, $pid;
        $name{$pid} = $comm;
    }
    return (\%kids, \%name);
}

# What the server wrote to STDERR so far.
sub log {
    my ($self) = @_;
    open my $fh, '<', $self->{stderr}->filename or return '';
    local $/;
    return <$fh> // '';
}

# Sends a signal (TERM by default) and waits for the exit; returns $?.
sub stop {
    my ($self, $signal, $timeout) = @_;
    return $self->{status} if exists $self->{status};
    kill $signal // 'TERM', $self->{pid};
    return $self->wait_exit($timeout);
}

# Waits for the server to exit (after a signal sent by the test itself);
# returns $?, or -1 when it had to be killed.
sub wait_exit {
    my ($self, $timeout) = @_;
    return $self->{status} if exists $self->{status};
    my $deadline = Time::HiRes::time() + ($timeout // 15);
    while (Time::HiRes::time() < $deadline) {
        if (waitpid($self->{pid}, POSIX::WNOHANG()) > 0) {
            my $status = $?;
            $self->check_errors;
            return $self->{status} = $status;
        }
        Time::HiRes::sleep(0.02);
    }
    kill KILL => $self->{pid};
    waitpid $self->{pid}, 0;
    $self->check_errors;
    return $self->{status} = -1;    # did not stop in time
}

# The [error] lines of the log that no allowed pattern matches.
sub unexpected_errors {
    my ($self) = @_;
    my @allowed = (@ALLOWED_ERRORS, $self->{allow_errors}->@*);
    return grep {
        my $line = $_;
        !grep { $line =~ $_ } @allowed
    } $self->log =~ /^(\S+ \[error\] .*)$/mg;
}

# Fails the test (once per server) when the log has unexpected [error]
# lines; adds no test when it has none.
sub check_errors {
    my ($self) = @_;
    return if $self->{errors_checked}++;
    my @lines = $self->unexpected_errors or return;
    local $Test::Builder::Level = $Test::Builder::Level + 2;
    Test::More::fail('no unexpected [error] line in the server log');
    Test::More::diag("  $_") for @lines;
}

sub DESTROY {
    my ($self) = @_;
    local $?;
    $self->stop if $self->{pid} && !exists $self->{status};
}

# A client socket to the server (TCP, or the unix socket).
sub connect {
    my ($self) = @_;
    my $sock = $self->{unix}
        ? IO::Socket::UNIX->new(Peer => $self->{unix})
        : IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $self->{port});
    die "Can't connect to the test server: $!" unless $sock;
    $sock->autoflush(1);
    return $sock;
}

# Sends "GET $path" (Connection: close) on a new connection; returns the
# connection, for read_response or read_until_close.
sub send_get {
    my ($self, $path) = @_;
    my $c = $self->connect;
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    return $c;
}

# Sends bytes on a new connection and returns everything read until the
# server closes it (or the timeout passes).
sub raw_request {
    my ($server, $bytes, $timeout) = @_;
    my $sock = $server->connect;
    syswrite $sock, $bytes;
    return read_all($sock, $timeout);
}

sub read_all {
    my ($sock, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 10);
    my $buf = '';
    while ((my $left = $deadline - Time::HiRes::time()) > 0) {
        vec(my $rin = '', fileno $sock, 1) = 1;
        last unless select($rin, undef, undef, $left);
        my $n = sysread $sock, $buf, 65536, length $buf;
        last unless $n;
    }
    return $buf;
}

# Reads exactly one response from a keep-alive connection:
# { status, headers => {lc name => value}, raw_headers, body, raw }.
# $opt{head} says the request was HEAD (no body follows); $opt{buffer}, a
# scalar ref, carries bytes read past one response over to the next call.
sub read_response {
    my ($sock, %opt) = @_;
    my $deadline = Time::HiRes::time() + ($opt{timeout} // 10);
    my $carry = $opt{buffer} // \(my $own = '');
    my $buf = $$carry;
    my $fill = sub {
        my $left = $deadline - Time::HiRes::time();
        return 0 if $left <= 0;
        vec(my $rin = '', fileno $sock, 1) = 1;
        return 0 unless select($rin, undef, undef, $left);
        return sysread $sock, $buf, 65536, length $buf;
    };
    while ($buf !~ /\r\n\r\n/) { $fill->() or return undef }
    my ($head, $rest) = split /\r\n\r\n/, $buf, 2;
    my ($status_line, @lines) = split /\r\n/, $head;
    my ($status) = $status_line =~ m{^HTTP/1\.[01] (\d{3})} or return undef;
    my %headers;
    for (@lines) {
        my ($k, $v) = /^([^:]+):\s*(.*)$/ or next;
        $headers{lc $k} = exists $headers{lc $k} ? "$headers{lc $k}, $v" : $v;
    }
    $buf = $rest;
    my $body = '';
    if ($opt{head} || $status =~ /^(?:1..|204|304)$/) {
        # no body
    } elsif (defined $headers{'content-length'}) {
        while (length $buf < $headers{'content-length'}) { $fill->() or last }
        $body = substr $buf, 0, $headers{'content-length'}, '';
    } elsif (($headers{'transfer-encoding'} // '') eq 'chunked') {
        while (1) {
            while ($buf !~ /\r\n/) { $fill->() or return undef }
            $buf =~ s/^([0-9a-fA-F]+)[^\r]*\r\n// or return undef;
            my $size = hex $1;
            while (length $buf < $size + 2) { $fill->() or return undef }
            $body .= substr $buf, 0, $size, '';
            substr($buf, 0, 2, '') eq "\r\n" or return undef;
            if ($size == 0) { last }
        }
    } else {
        while ($fill->()) { }
        $body = $buf;
        $buf = '';
    }
    $$carry = $buf;
    return { status => $status, headers => \%headers, head => $head, body => $body };
}

1;
