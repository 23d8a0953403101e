package Kamado::Bench::SlowClient;
use 5.024;
use strict;
use warnings;

# The engine behind bench/slowclient, bench/slow-attacks and the tests in
# t/slow/: slow-client attacks on a loopback server (many non-blocking
# connections in one select loop) and a "probe", a normal client whose
# latency shows whether the server still serves while it is attacked.
# Core modules only. Loopback only; every run is bounded in connections
# and time and stops by itself.

use Errno ();
use Exporter 'import';
use IO::Handle ();
use JSON::PP ();
use POSIX ();
use Socket qw(AF_INET AF_INET6 SOCK_STREAM SOL_SOCKET SO_ERROR SO_RCVBUF IPPROTO_TCP
    getaddrinfo unpack_sockaddr_in unpack_sockaddr_in6);
use Time::HiRes ();

our @EXPORT_OK = qw(attack probe run check_host percentiles);

our $MAX_CONNS    = 2000;
our $MAX_DURATION = 600;
our @MODES        = qw(headers body expect read idle);

$SIG{PIPE} = 'IGNORE';    # a write on a connection the server closed is an event, not a death

sub now { Time::HiRes::time() }

# Dies unless $host is a loopback name or address.
sub check_host {
    my ($host) = @_;
    return 1 if defined $host && $host =~ /\A(?:127\.0\.0\.1|::1|\[::1\]|localhost)\z/;
    die "slowclient: refusing host '" . ($host // '') . "': only 127.0.0.1, ::1 or localhost\n";
}

sub _resolve {
    my ($host, $port) = @_;
    check_host($host);
    $host = '::1' if $host eq '[::1]';
    my ($err, @ai) = getaddrinfo($host, $port, { socktype => SOCK_STREAM });
    die "slowclient: can't resolve $host: $err\n" if $err || !@ai;
    # localhost may resolve to a non-loopback address only in a broken
    # /etc/hosts; check what we actually connect to
    for my $ai (@ai) {
        my $ip = $ai->{family} == AF_INET6
            ? Socket::inet_ntop(AF_INET6, (unpack_sockaddr_in6($ai->{addr}))[1])
            : Socket::inet_ntop(AF_INET, (unpack_sockaddr_in($ai->{addr}))[1]);
        return $ai if $ip eq '::1' || $ip =~ /\A127\./;
    }
    die "slowclient: $host does not resolve to a loopback address\n";
}

sub _check_bounds {
    my ($o) = @_;
    die "slowclient: --conns must be 1..$MAX_CONNS\n"
        unless ($o->{conns} // 0) >= 1 && $o->{conns} <= $MAX_CONNS;
    die "slowclient: --duration must be >0 and at most $MAX_DURATION\n"
        unless ($o->{duration} // 0) > 0 && $o->{duration} <= $MAX_DURATION;
    die "slowclient: --interval must be at least 0.01\n" if ($o->{interval} // 1) < 0.01;
    die "slowclient: unknown mode '$o->{mode}' (@MODES)\n" unless grep { $_ eq ($o->{mode} // '') } @MODES;
}

# Nearest-rank percentiles of a list of numbers: {p50, p90, p99, max}.
sub percentiles {
    my @v = sort { $a <=> $b } @_;
    return { p50 => undef, p90 => undef, p99 => undef, max => undef, min => undef } unless @v;
    my $rank = sub { $v[ POSIX::ceil($_[0] / 100 * @v) - 1 ] };
    return { min => $v[0], p50 => $rank->(50), p90 => $rank->(90), p99 => $rank->(99), max => $v[-1] };
}

# ---------------------------------------------------------------------------
# The attack
# ---------------------------------------------------------------------------

# attack(mode => headers|body|read|idle, port => P, host => H, conns => N,
#        duration => S, interval => S, ...) -> result hash (see bench/slowclient)
#
# One select loop drives every connection. A connection the server closes
# is counted with its age (seconds since it was connected) and its quiet
# time (seconds since the client last sent a byte, or since its response
# ended in idle mode), and the status of whatever response came first;
# unless once => 1, it is replaced by a new one. With pieces => N each
# connection sends N pieces and then nothing (a client that stalls); with
# stagger => S the first connections are opened S seconds apart. on_ready is called once
# all first connections are open (or failed).
sub attack {
    my (%o) = @_;
    %o = (host => '127.0.0.1', conns => 100, duration => 10, interval => 1, path => undef,
        body_length => 1_000_000, rcvbuf => 4096, read_bytes => 0, once => 0, finish => 0,
        bytes => 1, pieces => 0, %o);
    _check_bounds(\%o);
    $o{path} //= $o{mode} eq 'read' ? '/big' : '/';
    die "slowclient: --port is required\n" unless $o{port};
    my $ai = _resolve($o{host}, $o{port});

    my $t0  = now();
    my $end = $t0 + $o{duration};
    my (%conn, @closes, %errors);    # fileno => conn state
    my ($opened, $connected, $initial_left, $ready, $last_proc, $writing) = (0, 0, $o{conns}, 0, 0, 0);
    my ($first_ready_at, $failed_seen, $backoff_until, $next_open) = (undef, 0, 0, 0);

    my $open = sub {
        socket(my $fh, $ai->{family}, SOCK_STREAM, 0) or do { $errors{"socket: $!"}++; return };
        # before connect, so the window the client advertises stays small
        setsockopt($fh, SOL_SOCKET, SO_RCVBUF, $o{rcvbuf}) if $o{mode} eq 'read' && $o{rcvbuf};
        $fh->blocking(0);
        $opened++;
        if (!connect($fh, $ai->{addr}) && !$!{EINPROGRESS}) {
            $errors{"connect: $!"}++;
            return;
        }
        $conn{ fileno $fh } = { fh => $fh, state => 'connecting', started => now(), out => '',
            in => '', sent => 0, seq => 0, initial => $initial_left > 0 ? 1 : 0 };
    };
    my $stream = _stream(\%o);
    my $record_close = sub {
        my ($c, $how) = @_;
        my $t = now();
        my ($status) = $c->{in} =~ m{\AHTTP/1\.[01] (\d{3})};
        push @closes, {
            age    => $c->{connected} ? $t - $c->{connected} : undef,
            quiet  => $t - ($c->{quiet_since} // $c->{connected} // $c->{started}),
            status => $status, how => $how, sent => $c->{sent}, after_idle => $c->{after_idle} // 0,
            received => $c->{received} // length $c->{in}, at => $t - $t0,
        };
        delete $conn{ fileno $c->{fh} };
        close $c->{fh};
    };

    while (1) {
        my $t = now();
        last if $t >= $end;
        # open first connections (in batches, so the loop keeps running) and replacements
        my $want = $initial_left > 0 ? $o{conns} : $o{once} ? 0 : $o{conns};
        my $batch = 0;
        # after a failed connect, wait a little: a refusing server is not hammered
        my $failed = 0;
        $failed += $_ for values %errors;
        if ($failed > $failed_seen) { $failed_seen = $failed; $backoff_until = $t + 0.1 }
        while (keys(%conn) < $want && $batch++ < 100 && $t >= $backoff_until && $t >= $next_open) {
            $open->();
            $initial_left-- if $initial_left > 0;
            # stagger => S: first connections S seconds apart, so each
            # finds a worker that is not busy with the one before
            if ($o{stagger} && $initial_left > 0) { $next_open = $t + $o{stagger}; last }
        }
        # ready: all first connections are open; in read mode, also the
        # server has started writing to one of them (a worker is now held
        # by it), or 5 s have passed
        if (!$ready && $initial_left == 0 && !grep { $_->{initial} && $_->{state} eq 'connecting' } values %conn
            and $o{mode} ne 'read' || $writing || $t - $t0 > 5) {
            $ready = 1;
            $first_ready_at = now() - $t0;
            $o{on_ready}->() if $o{on_ready};
        }
        last if $o{once} && $initial_left == 0 && !%conn;
        last if $o{stop} && $o{stop}->();

        my ($rin, $win) = ('', '');
        my $next = $end;
        for my $fd (keys %conn) {
            my $c = $conn{$fd};
            if ($c->{state} eq 'connecting') { vec($win, $fd, 1) = 1; next }
            vec($rin, $fd, 1) = 1 unless $o{mode} eq 'read' && !$c->{read_now};
            vec($win, $fd, 1) = 1 if length $c->{out};
            $next = $c->{next_send} if defined $c->{next_send} && $c->{next_send} < $next;
            $next = $c->{next_read} if defined $c->{next_read} && $c->{next_read} < $next;
        }
        my $wait = $next - now();
        $wait = 0.2 if $wait > 0.2;    # read mode polls the server's socket states
        $wait = 0 if $wait < 0;
        my $n = select(my $rout = $rin, my $wout = $win, undef, $wait);
        if ($n < 0) {
            next if $!{EINTR};
            die "slowclient: select: $!\n";
        }
        $t = now();
        for my $fd (keys %conn) {
            my $c = $conn{$fd} or next;
            if ($c->{state} eq 'connecting') {
                next unless vec($wout, $fd, 1);
                my $err = unpack 'i', getsockopt($c->{fh}, SOL_SOCKET, SO_ERROR) // pack 'i', 0;
                if ($err) {
                    local $! = $err;
                    $errors{"connect: $!"}++;
                    delete $conn{$fd};
                    close $c->{fh};
                    next;
                }
                $connected++;
                $c->{state} = 'open';
                $c->{connected} = $c->{quiet_since} = $t;
                $c->{local_port} = _local_port($c->{fh});
                $stream->{start}->($c, $t);
                next;
            }
            if (vec($rout, $fd, 1) || ($c->{read_now} && $c->{next_read} <= $t)) {
                my $max = $o{mode} eq 'read' ? ($o{read_bytes} || 65536) : 65536;
                my $got = sysread $c->{fh}, (my $buf), $max;
                if (!defined $got) {
                    if (!$!{EAGAIN} && !$!{EINTR}) { $record_close->($c, $!{ECONNRESET} ? 'reset' : "error: $!"); next }
                } elsif ($got == 0) {
                    $record_close->($c, 'eof');
                    next;
                } else {
                    $c->{received} += $got;
                    $c->{in} .= $buf if length $c->{in} < 4096;
                    $stream->{got}->($c, $t, $got);
                }
                $c->{next_read} = $t + $o{interval} if $c->{read_now};
            }
            if (defined $c->{next_send} && $c->{next_send} <= $t && !length $c->{out}) {
                # with pieces => N the client falls silent after N pieces
                my $piece = $o{pieces} && ($c->{pieces}++ // 0) >= $o{pieces} ? '' : $stream->{next}->($c, $o{bytes});
                if (length $piece) {
                    $c->{out} = $piece;
                    $c->{quiet_since} = $t;
                    $c->{next_send} += $o{interval};
                    $c->{next_send} = $t + $o{interval} if $c->{next_send} < $t;
                } else {
                    delete $c->{next_send};
                }
            }
            if (length $c->{out}) {
                my $w = syswrite $c->{fh}, $c->{out};
                if (defined $w) {
                    substr $c->{out}, 0, $w, '';
                    $c->{sent} += $w;
                } elsif (!$!{EAGAIN} && !$!{EINTR}) {
                    $record_close->($c, $!{EPIPE} ? 'reset' : $!{ECONNRESET} ? 'reset' : "error: $!");
                    next;
                }
            }
        }
        # a client that never reads can't see the server's FIN (it is
        # queued behind the unsent data): look at the server's side of
        # each connection in /proc/net/tcp instead
        if ($o{mode} eq 'read' && $t - $last_proc >= 0.1) {
            $last_proc = $t;
            my $states = _server_states($o{port});
            for my $c (grep { $_->{state} eq 'open' && $_->{local_port} } values %conn) {
                my ($st, $txq) = @{ $states->{ $c->{local_port} } // [] };
                $writing = 1 if $txq;
                # /proc/net/tcp is read in pages and can skip a line while
                # sockets come and go: gone only when missing 3 times running
                $c->{missing} = defined $st ? 0 : ($c->{missing} // 0) + 1;
                # 01 ESTABLISHED; 03 SYN_RECV while TCP_DEFER_ACCEPT waits for the request
                if ((defined $st && $st ne '01' && $st ne '03') || $c->{missing} >= 3) {
                    sysread $c->{fh}, (my $buf), 4096;    # keep the status line
                    $c->{in} .= $buf // '';
                    $c->{received} += length($buf // '');
                    $record_close->($c, defined $st ? "server state $st" : 'server socket gone');
                }
            }
        }
    }

    my @open_ages = map { $_->{connected} ? now() - $_->{connected} : 0 } grep { $_->{state} eq 'open' } values %conn;
    my @open_quiet = map { now() - $_->{quiet_since} } grep { $_->{state} eq 'open' } values %conn;
    close $_->{fh} for values %conn;
    my %status;
    $status{ $_->{status} // 'none' }++ for @closes;
    my $ages = percentiles(grep { defined } map { $_->{age} } @closes);
    return {
        mode => $o{mode}, conns => $o{conns}, interval => $o{interval}, duration => $o{duration},
        elapsed => now() - $t0, ready_at => $first_ready_at,
        opened => $opened, connected => $connected, connect_errors => \%errors,
        server_closes => scalar @closes, close_status => \%status,
        close_age => $ages, close_quiet => percentiles(map { $_->{quiet} } @closes),
        closes => \@closes,
        open_at_end => scalar @open_ages, open_at_end_max_age => (@open_ages ? (sort { $b <=> $a } @open_ages)[0] : undef),
        open_at_end_max_quiet => (@open_quiet ? (sort { $b <=> $a } @open_quiet)[0] : undef),
    };
}

# What each mode sends: start (on connect), next (the next piece to
# trickle, '' when done), got (bytes arrived).
sub _stream {
    my ($o) = @_;
    my $host = 'localhost';
    my $mode = $o->{mode};
    if ($mode eq 'headers') {
        my $head = "GET $o->{path} HTTP/1.1\r\nHost: $host\r\nUser-Agent: slowclient\r\n";
        return {
            start => sub { my ($c, $t) = @_; $c->{pending} = $head; $c->{next_send} = $t },
            next  => sub {
                my ($c, $n) = @_;
                if (length($c->{pending}) < $n && !$c->{finished}) {
                    # never finishes: one more header line, for ever (or a blank line with --finish)
                    $c->{pending} .= $o->{finish} ? "\r\n" : sprintf "X-Slow-%d: %d\r\n", $c->{seq}, $c->{seq};
                    $c->{seq}++;
                    $c->{finished} = 1 if $o->{finish};
                }
                return substr $c->{pending}, 0, $n, '';
            },
            got => sub { },
        };
    }
    if ($mode eq 'body') {
        return {
            start => sub {
                my ($c, $t) = @_;
                $c->{out} = "POST $o->{path} HTTP/1.1\r\nHost: $host\r\nContent-Type: application/octet-stream\r\n"
                    . "Content-Length: $o->{body_length}\r\n\r\n";
                $c->{body_left} = $o->{body_length};
                $c->{next_send} = $t + $o->{interval};
            },
            next => sub {
                my ($c, $n) = @_;
                $n = $c->{body_left} if $n > $c->{body_left};
                $c->{body_left} -= $n;
                return 'x' x $n;
            },
            got => sub { },
        };
    }
    if ($mode eq 'expect') {
        # an upload that asks first: the body trickles once the server says
        # 100 Continue (or, as curl does, after a second without an answer)
        return {
            start => sub {
                my ($c, $t) = @_;
                $c->{out} = "POST $o->{path} HTTP/1.1\r\nHost: $host\r\nContent-Type: application/octet-stream\r\n"
                    . "Content-Length: $o->{body_length}\r\nExpect: 100-continue\r\n\r\n";
                $c->{body_left} = $o->{body_length};
                $c->{next_send} = $t + 1;
            },
            next => sub {
                my ($c, $n) = @_;
                $n = $c->{body_left} if $n > $c->{body_left};
                $c->{body_left} -= $n;
                return 'x' x $n;
            },
            got => sub {
                my ($c, $t) = @_;
                # the interim answer is not the one a close is counted with
                $c->{next_send} = $t if $c->{in} =~ s{\AHTTP/1\.1 100 [^\r]*\r\n\r\n}{} && $c->{body_left} == $o->{body_length};
            },
        };
    }
    if ($mode eq 'read') {
        return {
            start => sub {
                my ($c, $t) = @_;
                $c->{out} = "GET $o->{path} HTTP/1.1\r\nHost: $host\r\n\r\n";
                if ($o->{read_bytes}) { $c->{read_now} = 1; $c->{next_read} = $t + $o->{interval} }
            },
            next => sub { '' },
            got  => sub { },
        };
    }
    # idle: one request, then nothing
    return {
        start => sub { my ($c) = @_; $c->{out} = "GET $o->{path} HTTP/1.1\r\nHost: $host\r\n\r\n" },
        next  => sub { '' },
        got   => sub {
            my ($c, $t, $got) = @_;
            if ($c->{idle}) { $c->{after_idle} += $got; return }
            my $end = index $c->{in}, "\r\n\r\n";
            return if $end < 0;
            my $head = substr $c->{in}, 0, $end;
            my ($cl) = $head =~ /^Content-Length:\s*(\d+)/mi;
            my $body = length($c->{in}) - $end - 4;
            if ((defined $cl && $body >= $cl) || (!defined $cl && $c->{in} =~ /\r\n0\r\n\r\n\z/)) {
                $c->{idle} = 1;
                $c->{quiet_since} = $t;    # the keep-alive timer starts now
            }
        },
    };
}

sub _local_port {
    my ($fh) = @_;
    my $name = getsockname($fh) or return undef;
    my $family = Socket::sockaddr_family($name);
    return $family == AF_INET6 ? (unpack_sockaddr_in6($name))[0] : (unpack_sockaddr_in($name))[0];
}

# {client port => [tcp state (hex, 01 = ESTABLISHED), bytes in the send
# queue]} for the server's sockets (local port $port) in /proc/net/tcp and
# tcp6.
sub _server_states {
    my ($port) = @_;
    my %st;
    my $want = sprintf '%04X', $port;
    for my $file ('/proc/net/tcp', '/proc/net/tcp6') {
        open my $fh, '<', $file or next;
        while (<$fh>) {
            my (undef, $local, $remote, $state, $queues) = split ' ';
            next unless $local && $local =~ /:$want\z/;
            my ($rport) = $remote =~ /:([0-9A-F]{4})\z/ or next;
            $st{ hex $rport } = [ $state, hex((split /:/, $queues)[0]) ];
        }
    }
    return \%st;
}

# ---------------------------------------------------------------------------
# The probe: a normal client
# ---------------------------------------------------------------------------

# probe(port => P, host => H, path => '/', rate => per second, count => N,
#       duration => S, keepalive => 0|1, timeout => S, stop => sub {...})
# Sequential GET requests at a steady rate (request i is started at
# t0 + i/rate, or at once when the previous one took longer). Latency is
# measured from the connect (or the write, on a kept-alive connection) to
# the last byte of the response. Returns {count, ok, errors, error_kinds,
# p50, p90, p99, max} (milliseconds).
sub probe {
    my (%o) = @_;
    %o = (host => '127.0.0.1', path => '/', rate => 10, timeout => 5, keepalive => 0, %o);
    die "slowclient: probe needs count or duration\n" unless $o{count} || $o{duration};
    die "slowclient: probe duration at most $MAX_DURATION\n" if ($o{duration} // 0) > $MAX_DURATION;
    my $ai = _resolve($o{host}, $o{port});
    my $t0 = now();
    my $stop_at = $o{duration} ? $t0 + $o{duration} : undef;
    my (@lat, %kinds, $sock, $carry);
    my $i = 0;
    while (1) {
        last if $o{count} && $i >= $o{count};
        last if $stop_at && now() >= $stop_at;
        last if $o{stop} && $o{stop}->();
        my $at = $t0 + $i / $o{rate};
        my $sleep = $at - now();
        Time::HiRes::sleep($sleep) if $sleep > 0;
        $i++;
        my $start = now();
        my $err;
        ($err, $sock) = _one_request($ai, \%o, $o{keepalive} ? $sock : undef, $start + $o{timeout});
        if ($err) {
            $kinds{$err}++;
            undef $sock;
        } else {
            push @lat, (now() - $start) * 1000;
        }
    }
    my $p = percentiles(@lat);
    my $errors = 0;
    $errors += $_ for values %kinds;
    return { count => $i, ok => scalar @lat, errors => $errors, error_kinds => \%kinds,
        (map { ($_ => defined $p->{$_} ? sprintf('%.2f', $p->{$_}) + 0 : undef) } qw(p50 p90 p99 max)),
        latencies_ms => [ map { sprintf('%.2f', $_) + 0 } @lat ], rate => $o{rate}, keepalive => $o{keepalive} ? 1 : 0 };
}

# One request; returns (error kind or undef, the socket if it may be reused).
sub _one_request {
    my ($ai, $o, $sock, $deadline) = @_;
    my $fresh = !$sock;
    if ($fresh) {
        socket($sock, $ai->{family}, SOCK_STREAM, 0) or return ("socket: $!");
        $sock->blocking(0);
        if (!connect($sock, $ai->{addr})) {
            return ("connect: $!") unless $!{EINPROGRESS};
            vec(my $w = '', fileno $sock, 1) = 1;
            my $left = $deadline - now();
            return ('connect timeout') unless $left > 0 && select(undef, $w, undef, $left) > 0;
            my $err = unpack 'i', getsockopt($sock, SOL_SOCKET, SO_ERROR);
            if ($err) { local $! = $err; return ("connect: $!") }
        }
    }
    my $req = "GET $o->{path} HTTP/1.1\r\nHost: localhost\r\n" . ($o->{keepalive} ? '' : "Connection: close\r\n") . "\r\n";
    my $w = syswrite $sock, $req;
    return ($fresh ? "write: $!" : 'keep-alive closed') unless defined $w && $w == length $req;
    my $buf = '';
    while (1) {
        my $left = $deadline - now();
        return ('timeout') if $left <= 0;
        vec(my $r = '', fileno $sock, 1) = 1;
        my $n = select($r, undef, undef, $left);
        next if $n < 0 && $!{EINTR};
        return ('timeout') unless $n > 0;
        my $got = sysread $sock, $buf, 65536, length $buf;
        next if !defined $got && $!{EAGAIN};
        return ($!{ECONNRESET} ? 'reset' : "read: $!") unless defined $got;
        my $end = index $buf, "\r\n\r\n";
        if ($end >= 0) {
            my ($status) = $buf =~ m{\AHTTP/1\.[01] (\d{3})} or return ('bad response');
            my ($cl) = substr($buf, 0, $end) =~ /^Content-Length:\s*(\d+)/mi;
            my $close = substr($buf, 0, $end) =~ /^Connection:\s*close/mi;
            if (defined $cl && length($buf) - $end - 4 >= $cl) {
                return ("status $status") if $status ne '200';
                return (undef, $o->{keepalive} && !$close ? $sock : undef);
            }
            if ($got == 0) {
                return ("status $status") if $status ne '200';
                return (defined $cl ? 'short body' : undef, undef);
            }
        }
        return ($buf eq '' ? ($fresh ? 'closed' : 'keep-alive closed') : 'truncated') if $got == 0;
    }
}

# ---------------------------------------------------------------------------
# Attack and probe together
# ---------------------------------------------------------------------------

# run(%attack_options, probe => {probe options} or undef) -> {attack, probe}
# The attack runs in a child process; the probe starts in this one once the
# child says all its first connections are open, and runs until its count,
# or until the attack's end if it has no count of its own. With
# end_with_probe => 1 the attack stops when the probe is done.
sub run {
    my (%o) = @_;
    my $probe_opt = delete $o{probe};
    my $end_with_probe = delete $o{end_with_probe};
    _check_bounds(\%o);
    _resolve($o{host} // '127.0.0.1', $o{port} || die "slowclient: --port is required\n");
    pipe(my $r, my $w) or die "slowclient: pipe: $!\n";
    my $t0 = now();
    my $pid = fork // die "slowclient: fork: $!\n";
    if ($pid == 0) {
        close $r;
        $w->autoflush(1);
        my $stop = 0;
        local $SIG{USR1} = sub { $stop = 1 };
        my $res = eval { attack(%o, on_ready => sub { print $w "ready\n" }, stop => sub { $stop }) };
        print $w ($res ? JSON::PP->new->canonical->encode($res) : JSON::PP->new->encode({ error => "$@" })), "\n";
        close $w;
        POSIX::_exit(0);
    }
    close $w;
    my $line = _read_line($r, $t0 + $o{duration} + 30);
    my ($probe, $attack);
    if (defined $line && $line eq "ready\n") {
        if ($probe_opt) {
            my $left = $t0 + $o{duration} - now();
            $probe = probe(host => $o{host} // '127.0.0.1', port => $o{port},
                ($probe_opt->{count} ? () : (duration => $left > 0.1 ? $left : 0.1)), %$probe_opt);
        }
        kill 'USR1', $pid if $end_with_probe;
        $line = _read_line($r, $t0 + $o{duration} + 30);
    }
    if (defined $line && $line =~ /^\{/) {
        $attack = JSON::PP->new->decode($line);
    } else {
        kill 'TERM', $pid;
        $attack = { error => 'the attack process gave no result' };
    }
    waitpid $pid, 0;
    die "slowclient: $attack->{error}" if $attack->{error};
    return { attack => $attack, probe => $probe };
}

sub _read_line {
    my ($fh, $deadline) = @_;
    state %buf;
    my $buf = \($buf{ fileno $fh } //= '');
    while ((my $nl = index $$buf, "\n") < 0) {
        my $left = $deadline - now();
        return undef if $left <= 0;
        vec(my $rin = '', fileno $fh, 1) = 1;
        my $n = select($rin, undef, undef, $left);
        next if $n < 0 && $!{EINTR};
        return undef unless $n > 0;
        sysread($fh, $$buf, 65536, length $$buf) or return undef;
    }
    return substr $$buf, 0, index($$buf, "\n") + 1, '';
}

1;
