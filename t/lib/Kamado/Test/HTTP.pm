package Kamado::Test::HTTP;
use 5.024;
use strict;
use warnings;

# Helpers for the raw-socket tests in t/http/: reading until the server
# closes (and telling a close from a timeout), parsing one response exactly
# by its own framing, waiting for files the apps write, and the "rejected
# request" check shared by the framing-rule tests.

use Exporter 'import';
use Errno ();
use File::Temp ();
use Test::More ();
use Time::HiRes ();
use Kamado::Test qw(start_server);

our @EXPORT_OK = qw(read_until_close read_until served_ok exchange pump parse_response parse_all wait_for_file
    slurp hit_server hits stuck_server rejects_ok REASON);

our %REASON = (
    100 => 'Continue', 200 => 'OK', 204 => 'No Content', 304 => 'Not Modified',
    400 => 'Bad Request', 408 => 'Request Timeout', 414 => 'URI Too Long',
    417 => 'Expectation Failed', 431 => 'Request Header Fields Too Large',
    500 => 'Internal Server Error', 501 => 'Not Implemented',
    505 => 'HTTP Version Not Supported',
);
sub REASON { $REASON{ $_[0] } // die "no reason phrase for $_[0]" }

# Reads until the peer closes. Returns (bytes, how): how is 'eof' for an
# orderly close, 'reset' for ECONNRESET, 'timeout' when the connection was
# still open after $timeout seconds (default 5).
sub read_until_close {
    my ($sock, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 5);
    my $buf = '';
    while ((my $left = $deadline - Time::HiRes::time()) > 0) {
        vec(my $rin = '', fileno $sock, 1) = 1;
        my $ready = select($rin, undef, undef, $left);
        next if $ready < 0 && $!{EINTR};
        last unless $ready > 0;
        my $n = sysread $sock, $buf, 65536, length $buf;
        return ($buf, 'eof') if defined $n && $n == 0;
        return ($buf, $!{ECONNRESET} ? 'reset' : "error: $!") if !defined $n;
    }
    return ($buf, 'timeout');
}

# Reads until the bytes read match $re, the peer closes, or $timeout
# (default 10) seconds pass; returns what was read.
sub read_until {
    my ($sock, $re, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 10);
    my $buf = '';
    while ($buf !~ $re && (my $left = $deadline - Time::HiRes::time()) > 0) {
        vec(my $rin = '', fileno $sock, 1) = 1;
        my $ready = select($rin, undef, undef, $left);
        next if $ready < 0 && $!{EINTR};
        last unless $ready > 0;
        sysread($sock, $buf, 65536, length $buf) or last;
    }
    return $buf;
}

# Sends $bytes in pieces of at most $opt{piece} bytes (all at once by
# default) while reading whatever comes back, so a server answering
# pipelined requests never blocks on a client that is still writing; then
# reads until the server closes. Returns (bytes read, how) like
# read_until_close.
sub exchange {
    my ($sock, $bytes, %opt) = @_;
    my $deadline = Time::HiRes::time() + ($opt{timeout} // 10);
    my $piece = $opt{piece} || length($bytes) || 1;
    my ($buf, $off, $how) = ('', 0);
    my $blocking = $sock->blocking(0);
    while ((my $left = $deadline - Time::HiRes::time()) > 0) {
        $how = pump($sock, \$bytes, \$off, \$buf, $left, $piece) // next;
        last if $how ne 'sent';
    }
    $sock->blocking($blocking);
    return ($buf, !defined $how || $how eq 'sent' || $how eq 'idle' ? 'timeout' : $how);
}

# One round of exchange() on a non-blocking socket: waits up to $left
# seconds, appends what arrived to $$buf, writes up to $piece more bytes of
# $$bytes from offset $$off. Returns 'sent' to go on; 'idle' when nothing
# happened in time; 'eof', 'reset' or "error: ..." when reading ended;
# "write error: ..." when writing failed; undef after a signal.
sub pump {
    my ($sock, $bytes, $off, $buf, $left, $piece) = @_;
    vec(my $rin = '', fileno $sock, 1) = 1;
    my $win = '';
    vec($win, fileno $sock, 1) = 1 if $$off < length $$bytes;
    my $ready = select(my $rout = $rin, my $wout = $win, undef, $left);
    return undef if $ready < 0 && $!{EINTR};
    return 'idle' unless $ready > 0;
    if (vec($rout, fileno $sock, 1)) {
        my $n = sysread $sock, $$buf, 65536, length $$buf;
        return 'eof' if defined $n && $n == 0;
        return $!{ECONNRESET} ? 'reset' : "error: $!" if !defined $n && !$!{EAGAIN};
    }
    if ($$off < length $$bytes && vec($wout, fileno $sock, 1)) {
        my $n = syswrite $sock, $$bytes, $piece, $$off;
        $$off += $n if $n;
        return "write error: $!" if !defined $n && !$!{EAGAIN};
    }
    return 'sent';
}

# Parses the response at the start of $bytes strictly, by its own framing
# (Content-Length, chunked, or none for HEAD/1xx/204/304 when $no_body).
# Returns { status_line, status, headers => {lc => value}, header_list =>
# [[name, value]...], head, body, raw_body, rest } or undef when the bytes
# do not hold one complete response.
sub parse_response {
    my ($bytes, %opt) = @_;
    my ($res, $end) = _parse_at(\$bytes, 0, %opt) or return undef;
    $res->{rest} = substr $bytes, $end;
    return $res;
}

# The parser behind parse_response and parse_all: parses the response at
# offset $off of $$ref; returns (response without rest, offset after it).
sub _parse_at {
    my ($ref, $off, %opt) = @_;
    my $end = index $$ref, "\r\n\r\n", $off;
    return if $end < 0;
    my $head = substr $$ref, $off, $end - $off;
    my $pos = $end + 4;
    my ($status_line, @lines) = split /\r\n/, $head, -1;
    my ($status) = $status_line =~ m{\AHTTP/1\.1 (\d{3}) } or return;
    my (%headers, @list);
    for (@lines) {
        my ($k, $v) = /\A([!#\$%&'*+.^_`|~0-9A-Za-z-]+): ?(.*)\z/s or return;
        push @list, [$k, $v];
        $headers{lc $k} = exists $headers{lc $k} ? "$headers{lc $k}, $v" : $v;
    }
    my %res = (status_line => $status_line, status => $status, headers => \%headers,
        header_list => \@list, head => $head);
    if ($opt{no_body} || $status =~ /\A(?:1\d\d|204|304)\z/) {
        @res{qw(body raw_body)} = ('', '');
    } elsif (defined $headers{'content-length'}) {
        my $cl = $headers{'content-length'};
        return if $cl !~ /\A\d+\z/ || length($$ref) - $pos < $cl;
        $res{body} = $res{raw_body} = substr $$ref, $pos, $cl;
        $pos += $cl;
    } elsif (lc($headers{'transfer-encoding'} // '') eq 'chunked') {
        my ($body, $start) = ('', $pos);
        while (1) {
            pos($$ref) = $pos;
            $$ref =~ /\G([0-9a-f]+)\r\n/gc or return;    # we send no extensions
            my $size = hex $1;
            $pos = pos $$ref;
            return if length($$ref) < $pos + $size + 2;
            $body .= substr $$ref, $pos, $size;
            return if substr($$ref, $pos + $size, 2) ne "\r\n";
            $pos += $size + 2;
            last if $size == 0;
        }
        $res{body} = $body;
        $res{raw_body} = substr $$ref, $start, $pos - $start;
    } else {
        $res{body} = $res{raw_body} = substr $$ref, $pos;    # up to the close
        $pos = length $$ref;
    }
    return (\%res, $pos);
}

# Splits a byte stream into consecutive responses (parse_response on each,
# without their rest); returns (list of responses, bytes left over that are
# not a whole one). $opt{no_body} is a list of booleans, one per response
# (HEAD requests).
sub parse_all {
    my ($bytes, %opt) = @_;
    my @res;
    my @no_body = ($opt{no_body} // [])->@*;
    my $off = 0;
    while ($off < length $bytes) {
        my ($r, $next) = _parse_at(\$bytes, $off, no_body => $no_body[@res]) or last;
        push @res, $r;
        $off = $next;
    }
    return (\@res, substr $bytes, $off);
}

# Polls for a file an app writes (the event the test waits for); true when
# it appeared within $timeout seconds.
sub wait_for_file {
    my ($path, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 10);
    until (-e $path) {
        return 0 if Time::HiRes::time() > $deadline;
        Time::HiRes::sleep(0.005);
    }
    return 1;
}

sub slurp {
    my ($path) = @_;
    open my $fh, '<', $path or return undef;
    local $/;
    return scalar(<$fh>) // '';
}

# A server whose app appends "METHOD PATH" to a hit log for every request
# it runs, so a test can prove a request never reached the app.
sub hit_server {
    my (%opt) = @_;
    my $dir = File::Temp::tempdir(CLEANUP => 1);
    local $ENV{KT_HITS} = "$dir/hits";
    my $server = start_server(%opt, app => <<'APP');
my $log = $ENV{KT_HITS};
sub {
    my $env = shift;
    my $body = do { local $/; my $in = $env->{'psgi.input'}; <$in> } // '';
    open my $fh, '>>', $log or die "$log: $!";
    print $fh "$env->{REQUEST_METHOD} $env->{PATH_INFO} " . length($body) . "\n";
    close $fh;
    [200, ['Content-Type' => 'text/plain'], ["hit $env->{PATH_INFO}"]];
}
APP
    $server->{hits} = "$dir/hits";
    return $server;
}

sub hits { slurp($_[0]{hits}) // '' }

# A server whose app, once a request is in it, writes its worker's pid to
# the file $server->{started} and then sleeps a minute, deaf to the
# worker's TERM: for the tests of what stops a stuck request.
sub stuck_server {
    my (%opt) = @_;
    my $dir = File::Temp::tempdir(CLEANUP => 1);
    local $ENV{KT_STARTED} = "$dir/started";
    my $server = start_server(%opt, app => <<'APP');
my $started = $ENV{KT_STARTED};
sub {
    open my $fh, '>', $started or die "$started: $!";
    print $fh $$;
    close $fh;
    sleep 1 for 1 .. 60;    # stuck, and deaf to the worker's TERM
    [200, ['Content-Type' => 'text/plain'], ['too late']];
}
APP
    $server->{started} = "$dir/started";
    return $server;
}

# A request that must be served on a hit_server(): 200, and it reached the
# app. Reads exactly one response, so the connection may stay open.
sub served_ok {
    my ($server, $name, $bytes, $path) = @_;
    my $c = $server->connect;
    syswrite $c, $bytes;
    my $res = Kamado::Test::read_response($c);
    Test::More::like($res ? "$res->{head}\r\n" : '', qr{\AHTTP/1\.1 200 OK\r\n}, "$name: 200");
    Test::More::like(hits($server), qr{^GET \Q$path\E 0$}m, "$name: reached the app");
}

# One malformed request on a fresh connection, with a valid request
# pipelined behind it: exactly one response with the exact status line,
# Connection: close, a body of its Content-Length, nothing after it, the
# connection closed, and nothing reaching the app. Then a valid request
# still works.
sub rejects_ok {
    my ($server, $name, $bytes, $status) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::subtest($name => sub {
        my $before = hits($server);
        my $sock = $server->connect;
        syswrite $sock, $bytes . "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
        my ($got, $how) = read_until_close($sock);
        my $res = parse_response($got);
        Test::More::ok($res, 'one complete response') or Test::More::diag(Test::More::explain($got));
        $res //= { headers => {}, status_line => '', rest => $got, body => '' };
        Test::More::is($res->{status_line}, "HTTP/1.1 $status " . REASON($status), "status line: $status");
        Test::More::is($res->{headers}{connection}, 'close', 'Connection: close');
        Test::More::ok(length $res->{body} > 0, 'a short body');
        Test::More::is($res->{rest}, '', 'nothing after the response (the smuggled request was not answered)');
        Test::More::ok($how eq 'eof' || $how eq 'reset', "the server closed the connection ($how)");
        Test::More::is(hits($server), $before, 'nothing reached the app');

        my $ok = $server->connect;
        syswrite $ok, "GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        my ($after) = read_until_close($ok);
        Test::More::like($after, qr{\AHTTP/1\.1 200 OK\r\n}, 'a valid request afterwards is served');
        Test::More::like(hits($server), qr{^GET /after 0$}m, 'and reaches the app');
        Test::More::unlike(hits($server), qr{smuggled}, 'the smuggled request never ran');
    });
}

1;
