# --pool: requests under a pool's path prefix are served by that pool's
# workers, every other request by the default pool, per request (keep-alive
# and pipelined requests change pool as their paths do), with the same %env
# and bytes as without pools; requests hanging in a pool do not delay the
# others, while without --pool they do; a full pool queue makes requests
# wait in order (none lost), and 503 after --header-timeout.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use POSIX ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);

my $APP = <<'APP';
sub {
    my $env = shift;
    my ($sleep) = ($env->{QUERY_STRING} // '') =~ /sleep=([\d.]+)/;
    select undef, undef, undef, $sleep if $sleep;
    my $body = '';
    if ($env->{CONTENT_LENGTH}) {
        my $fh = $env->{'psgi.input'};
        local $/;
        $body = <$fh> // '';
    }
    my %show = map { ($_ => $env->{$_}) } grep { !ref $env->{$_} } keys %$env;
    @show{qw(pid body_length body_sum)} = ($$, length $body, unpack('%32C*', $body));
    [200, ['Content-Type' => 'text/plain'], [map { "$_=$show{$_}\n" } sort keys %show]];
}
APP

# The response body as a hash (see the app).
sub env_of {
    my ($res) = @_;
    return {} unless $res && $res->{status} == 200;
    return { map { /^([^=]*)=(.*)$/ ? ($1 => $2) : () } split /\n/, $res->{body} };
}

# Waits until the generation runs $n workers, $pool of them named for pool ai;
# returns the set of the ai pool's pids.
sub pool_pids {
    my ($server, $n, $pool) = @_;
    my $deadline = Time::HiRes::time() + 60;
    while (Time::HiRes::time() < $deadline) {
        my @workers = $server->workers;
        my @ai = grep { my $c = _cmdline($_); $c =~ /^kamado worker ai / } @workers;
        return { map { ($_ => 1) } @ai } if @workers == $n && @ai == $pool;
        Time::HiRes::sleep(0.02);
    }
    die "the workers did not start\n" . $server->log;
}

sub _cmdline {
    open my $fh, '<', "/proc/$_[0]/cmdline" or return '';
    local $/;
    return (<$fh> // '') =~ tr/\0/ /r;
}

sub get { "GET $_[0] HTTP/1.1\r\nHost: pools.test\r\nX-Probe: 1\r\n" . ($_[1] ? "Connection: close\r\n" : '') . "\r\n" }

sub post {
    my ($path, $body) = @_;
    return "POST $path HTTP/1.1\r\nHost: pools.test\r\nContent-Length: " . length($body) . "\r\n\r\n$body";
}

sub p99 {
    my @sorted = sort { $a <=> $b } @_;
    return $sorted[ int(0.99 * @sorted + 0.999) - 1 ];
}

# $n requests to /ai/ sleeping $sleep s each, sent and not waited for
sub hang {
    my ($server, $n, $sleep) = @_;
    # each written as it connects: a worker that accepted many idle
    # connections before their requests came would serve them all while
    # the other workers idle, and / would not have to wait (see below)
    my @socks = map { my $s = $server->connect; syswrite $s, get("/ai/hang?sleep=$sleep", 1); $s } 1 .. $n;
    return @socks;
}

# GET / on a new connection each time, one after the other, $n times or
# until $budget seconds have passed; returns (latencies, failures). A
# request unanswered after $timeout s counts as $timeout s.
sub sequential_gets {
    my ($server, $n, $timeout, $budget) = @_;
    my (@lat, $failed);
    my $end = Time::HiRes::time() + $budget;
    for (1 .. $n) {
        last if Time::HiRes::time() > $end;
        my $t0 = Time::HiRes::time();
        my $res = read_response($server->send_get('/'), timeout => $timeout);
        push @lat, Time::HiRes::time() - $t0;
        $failed++ unless $res && $res->{status} == 200;
    }
    return (\@lat, $failed // 0);
}

subtest 'routing per request, %env and bytes unchanged' => sub {
    my $server = start_server(app => $APP, workers => 2, args => ['--pool', 'ai:/ai/,workers=2']);
    my $ai = pool_pids($server, 4, 2);
    like $server->log, qr{accepting connections .* with 2 workers; pool ai for /ai/ with 2 workers(?:\n|; running as root)},
        'the pools are logged at startup';

    # one keep-alive connection: direct, to the pool, back to the default pool
    my $c = $server->connect;
    my $buf = '';
    my @env;
    for my $path ('/x?q=1', '/ai/x?q=1', '/x?q=1', '/ai/y') {
        syswrite $c, get($path);
        push @env, env_of(read_response($c, buffer => \$buf));
    }
    ok !$ai->{ $env[0]{pid} } && $env[0]{pid}, 'a / request is served by a default worker';
    ok $ai->{ $env[1]{pid} }, 'an /ai/ request by a pool worker';
    ok !$ai->{ $env[2]{pid} } && $env[2]{pid}, 'the next / request on the connection by a default worker';
    ok $ai->{ $env[3]{pid} }, 'and the next /ai/ one by a pool worker';
    is $env[$_]{PATH_INFO}, (qw(/x /ai/x /x /ai/y))[$_], "request $_ has its own path" for 0 .. 3;
    my %skip = map { ($_ => 1) } qw(pid PATH_INFO REQUEST_URI kamado.request_id);    # (the id: each its own)
    my @same = map { my $e = $_; +{ map { ($_ => $e->{$_}) } grep { !$skip{$_} } keys %$e } } @env[0 .. 2];
    is_deeply $same[1], $same[0], '%env in the pool is what the default pool sees (REMOTE_*, SERVER_*, headers)';
    is_deeply $same[2], $same[0], 'and after coming back';
    is $env[1]{REMOTE_PORT}, $env[0]{REMOTE_PORT}, 'the same connection (REMOTE_PORT)';
    is $env[1]{SERVER_PORT}, $server->port, 'SERVER_PORT';

    # pipelined, bodies included: the unread bytes travel with the connection
    my $body = join '', map { chr(($_ * 7) % 256) } 1 .. 3000;
    $c = $server->connect;
    syswrite $c, get('/ai/1') . get('/2') . post('/ai/3', $body) . post('/4', 'abc') . get('/ai/5', 1);
    $buf = '';
    my @got = map { env_of(read_response($c, buffer => \$buf)) } 1 .. 5;
    is_deeply [map { $_->{PATH_INFO} } @got], [qw(/ai/1 /2 /ai/3 /4 /ai/5)], 'pipelined: five answers, in order';
    is_deeply [map { $ai->{ $_->{pid} // 0 } ? 'ai' : 'default' } @got], [qw(ai default ai default ai)],
        'each served by its pool';
    is $got[2]{body_length}, 3000, 'the pipelined body reached the pool';
    is $got[2]{body_sum}, unpack('%32C*', $body), 'intact';
    is $got[3]{body_length}, 3, 'and the one behind it, back in the default pool';
    is sysread($c, my $extra, 10), 0, 'then the connection closes (Connection: close)';

    # bodies larger than the connection buffer, with Content-Length and chunked
    my $big = join '', map { chr(($_ * 13) % 251) } 1 .. 200_000;
    for my $chunked (0, 1) {
        $c = $server->connect;
        my $req = $chunked
            ? "POST /ai/big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                . join('', map { sprintf("%x\r\n%s\r\n", length, $_) } unpack '(a50000)*', $big) . "0\r\n\r\n"
            : post('/ai/big', $big);
        my $res;
        # the server reads as the client writes: write in a child
        my $pid = fork // die "fork: $!";
        if (!$pid) { syswrite $c, $req; POSIX::_exit(0) }
        $res = env_of(read_response($c, timeout => 10));
        waitpid $pid, 0;
        ok $ai->{ $res->{pid} // 0 }, ($chunked ? 'chunked' : 'Content-Length') . ' body of 200 KB: served in the pool';
        is $res->{body_length}, 200_000, 'all of it';
        is $res->{body_sum}, unpack('%32C*', $big), 'intact';
    }
    # the path as sent: an escaped prefix is not the prefix
    my $res = env_of(read_response($server->send_get('/%61i/x')));
    ok !$ai->{ $res->{pid} // 0 } && $res->{PATH_INFO} eq '/ai/x', '/%61i/x matches no pool (raw path)';
};

subtest '50 requests hanging in a pool do not delay /' => sub {
    my $server = start_server(app => $APP, workers => 2, args => ['--pool', 'ai:/ai/,workers=10']);
    pool_pids($server, 12, 10);
    my @hanging = hang($server, 50, 1);
    my ($lat, $failed) = sequential_gets($server, 50, 5, 30);
    is $failed, 0, '50 GET / on new connections: all 200';
    cmp_ok p99(@$lat), '<', 1, sprintf('p99 %.3f s (max %.3f s), under 1 s', p99(@$lat), (sort { $b <=> $a } @$lat)[0]);
    my $ok = grep { my $r = read_response($_, timeout => 20); $r && $r->{status} == 200 } @hanging;
    is $ok, 50, 'all 50 /ai/ requests were answered 200: none lost while queued';
};

subtest 'the same load without --pool delays /' => sub {
    my $server = start_server(app => $APP, workers => 2, args => ['--graceful-timeout', 1]);
    my @hanging = hang($server, 50, 1);
    my ($lat) = sequential_gets($server, 50, 3, 10);
    cmp_ok p99(@$lat), '>', 1, sprintf('p99 %.3f s: over 1 s', p99(@$lat));
    $server->stop('INT');
};

subtest 'a full pool queue: requests wait in order, none is lost' => sub {
    # 60 KB messages: the queue (the socket's send buffer) holds a few
    my $server = start_server(app => $APP, workers => 1, args => ['--pool', 'ai:/ai/,workers=2']);
    pool_pids($server, 3, 2);
    my $body = 'b' x 60_000;
    my @socks = map { $server->connect } 1 .. 12;
    syswrite $socks[$_], post("/ai/$_?sleep=0.1", $body) for 0 .. $#socks;
    my @got = map { env_of(read_response($_, timeout => 20)) } @socks;
    is_deeply [map { $_->{PATH_INFO} // 'none' } @got], [map { "/ai/$_" } 0 .. 11], 'all 12 answered';
    is_deeply [map { $_->{body_length} // 0 } @got], [(60_000) x 12], 'with their bodies';
    like $server->log, qr/\A[^\n]*accepting connections[^\n]*\n\z/, 'nothing logged but the start';
};

subtest 'waiting longer than --header-timeout for room: 503' => sub {
    my $server = start_server(app => $APP, workers => 1,
        args => ['--pool', 'ai:/ai/,workers=1', '--header-timeout', 1]);
    pool_pids($server, 2, 1);
    my $body = 'b' x 60_000;
    my @socks = map { $server->connect } 0 .. 9;
    # the first holds the pool's worker for 3 s; a few fill the queue
    syswrite $socks[$_], post('/ai/' . ($_ ? $_ : '0?sleep=3'), $body) for 0 .. $#socks;
    my $t0 = Time::HiRes::time();
    my @res = map { read_response($_, timeout => 10) } reverse @socks;
    my @status = map { $_ ? $_->{status} : 'none' } reverse @res;
    is scalar(grep { $_ eq '503' || $_ eq '200' } @status), 10, "all answered (@status)";
    is $status[0], 200, 'the one in the app got its answer';
    cmp_ok scalar(grep { $_ eq '503' } @status), '>=', 3, 'those that found no room in time got 503';
    is scalar(grep { ($_->{status} // 0) == 200 && env_of($_)->{body_length} != 60_000 } @res), 0,
        'the ones served got their whole body';
    my $res = read_response($server->send_get('/'), timeout => 5);
    is $res && $res->{status}, 200, 'and / is served';
};

subtest 'a pool worker that dies is replaced in its pool; TTIN grows the default pool' => sub {
    my $server = start_server(app => $APP, workers => 1, args => ['--pool', 'ai:/ai/,workers=1']);
    my ($victim) = keys %{ pool_pids($server, 2, 1) };
    kill KILL => $victim;
    # until the generation reaps it, the victim is still one of its children
    eventually(sub { !grep { $_ == $victim } $server->workers }, 60) or die "worker $victim not reaped\n";
    my $ai = pool_pids($server, 2, 1);
    ok !$ai->{$victim}, 'a new ai worker replaces the dead one';
    my $res = env_of(read_response($server->send_get("/ai/after"), timeout => 30));
    ok $ai->{ $res->{pid} // 0 }, 'and serves the pool';
    kill TTIN => $server->pid;
    is_deeply pool_pids($server, 3, 1), $ai, 'TTIN: one more worker, in the default pool';
    kill TTOU => $server->pid;
    is_deeply pool_pids($server, 2, 1), $ai, 'TTOU: one fewer, from the default pool';
};

done_testing;
