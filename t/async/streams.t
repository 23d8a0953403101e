# --async: one worker serves many requests at once. Delayed responses
# answered from EV timers, 100 SSE streams open together (each with every
# event, in order) while a fast route still answers, psgi.nonblocking
# true; a client that leaves mid-stream is noticed at once (on_close and
# the cleanup handlers run, the app's timer stops); a stream's writes
# never block a slow reader, and poll_cb paces a large body.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use AnyEvent;
use AnyEvent::Handle;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);

my $APP = <<'APP';
use AnyEvent;
use Time::HiRes ();
sub {
    my ($env) = @_;
    my $path = $env->{PATH_INFO};
    return [200, ['Content-Type' => 'text/plain'], ["nonblocking=" . ($env->{'psgi.nonblocking'} ? 1 : 0) . "\n"]]
        if $path eq '/fast';
    if ($path eq '/later') {
        return sub {
            my ($r) = @_;
            my $t; $t = AE::timer 0.3, 0, sub { undef $t; $r->([200, ['Content-Type' => 'text/plain'], ["later\n"]]) };
        };
    }
    if ($path eq '/sse') {
        my ($n) = ($env->{QUERY_STRING} // '') =~ /n=(\d+)/;
        return sub {
            my ($r) = @_;
            my $w = $r->([200, ['Content-Type' => 'text/event-stream']]);
            my ($i, $t) = (0);
            $w->on_close(sub { undef $t; print STDERR "on_close after $i at ", Time::HiRes::time(), "\n" });
            push $env->{'psgix.cleanup.handlers'}->@*, sub { print STDERR "cleanup after $i\n" };
            $t = AE::timer 0.05, 0.05, sub {
                return $w->write("data: " . ++$i . "\n\n") if $i < $n;
                undef $t;
                $w->close;
            };
        };
    }
    if ($path eq '/idle') {
        # waits 60 s before its first event (a slow model thinking)
        return sub {
            my ($r) = @_;
            my $w = $r->([200, ['Content-Type' => 'text/event-stream']]);
            my $t; $t = AE::timer 60, 0, sub { undef $t; $w->write("data: late\n\n"); $w->close };
            $w->on_close(sub { undef $t; print STDERR "idle stream closed at ", Time::HiRes::time(), "\n" });
        };
    }
    if ($path eq '/big') {
        # 8 MiB in 64 KiB pieces, each written when the last has gone
        return sub {
            my ($r) = @_;
            my $w = $r->([200, ['Content-Type' => 'application/octet-stream', 'Content-Length' => 128 * 65536]]);
            my $left = 128;
            my $polls = 0;
            $w->poll_cb(sub {
                my ($w) = @_;
                $polls++;
                if (!$left) {
                    $w->poll_cb(undef);
                    print STDERR "big: $polls polls\n";
                    return $w->close;
                }
                $left--;
                $w->write(chr(65 + $left % 26) x 65536);
            });
        };
    }
    [404, [], ['no']];
}
APP

my $server = start_server(app => $APP, args => ['--async'], workers => 1);
my $port = $server->port;

# Reads whole responses to GET $path over $n connections at once.
sub fetch_all {
    my ($path, $n, %opt) = @_;
    my $cv = AE::cv;
    my %got;
    for my $i (1 .. $n) {
        $cv->begin;
        my $buf = '';
        my $h; $h = AnyEvent::Handle->new(
            connect  => ['127.0.0.1', $port],
            timeout  => 30,
            on_error => sub { $got{$i} = $buf; undef $h; $cv->end },
            on_eof   => sub { $got{$i} = $buf; undef $h; $cv->end },
            on_read  => sub { $buf .= delete $_[0]{rbuf} },
        );
        $h->push_write("GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }
    $opt{during}->() if $opt{during};
    $cv->recv;
    return \%got;
}

my $fast = read_response($server->send_get('/fast'));
is $fast->{body}, "nonblocking=1\n", 'psgi.nonblocking is true in an async worker';

my $t0 = Time::HiRes::time();
my $later = fetch_all('/later', 20);
my $took = Time::HiRes::time() - $t0;
is scalar(grep { /\r\n\r\nlater\n\z/ } values %$later), 20, '20 delayed responses, answered from EV timers';
cmp_ok $took, '<', 3, "one worker answered them together (${took}s, 0.3 s each)";

# 100 streams of 20 events (1 s each), and the fast route meanwhile
my @fast_times;
my $streams = fetch_all('/sse?n=20', 100, during => sub {
    my $w; $w = AE::timer 0.3, 0, sub {
        undef $w;
        my $t = Time::HiRes::time();
        my $res = read_response($server->send_get('/fast'));
        push @fast_times, [Time::HiRes::time() - $t, $res && $res->{status}];
    };
});
my $expect = join '', map { "data: $_\n\n" } 1 .. 20;
my $whole = grep {
    my ($head, $body) = split /\r\n\r\n/, $_, 2;
    $head =~ /chunked/ && dechunk($body) eq $expect;
} values %$streams;
is $whole, 100, '100 concurrent streams each got every event, in order';
is $fast_times[0][1], 200, 'the fast route answered while they streamed';
cmp_ok $fast_times[0][0], '<', 1, "at once ($fast_times[0][0] s)";

# a client that leaves mid-stream
my $log_before = length $server->log;
my $sock = $server->send_get('/sse?n=1000');
my $head = '';
sysread $sock, $head, 4096 until $head =~ /data: 3/;
my $left_at = Time::HiRes::time();
close $sock;
ok eventually(sub { substr($server->log, $log_before) =~ /on_close after \d+ at ([\d.]+)/ }, 10),
    'the app is told the client left (on_close)';
my ($noticed) = substr($server->log, $log_before) =~ /on_close after \d+ at ([\d.]+)/;
cmp_ok $noticed - $left_at, '<', 1, 'within one second of the close (' . sprintf('%.3f', $noticed - $left_at) . ' s)';
ok eventually(sub { substr($server->log, $log_before) =~ /cleanup after/ }, 5), 'and its cleanup handlers ran';

# a client that leaves an idle stream: no write finds it gone, the loop does
my $idle = $server->send_get('/idle');
my $idle_head = read_response($idle, timeout => 0.5);    # (the head only: the body never ends)
Time::HiRes::sleep(0.2);
my $idle_left = Time::HiRes::time();
close $idle;
ok eventually(sub { $server->log =~ /idle stream closed at ([\d.]+)/ }, 10), 'a client leaving an idle stream is noticed';
my ($idle_noticed) = $server->log =~ /idle stream closed at ([\d.]+)/;
cmp_ok $idle_noticed - $idle_left, '<', 1, sprintf 'within one second, with no write (%.3f s)', $idle_noticed - $idle_left;

# backpressure: a client that reads slowly at first
my $big = $server->send_get('/big');
Time::HiRes::sleep(0.5);    # the socket buffers fill; the stream waits
my $raw = Kamado::Test::read_all($big, 30);
my ($bighead, $bigbody) = split /\r\n\r\n/, $raw, 2;
is length($bigbody // ''), 128 * 65536, 'poll_cb paced an 8 MiB body to the end';
is substr($bigbody, 0, 1) . substr($bigbody, -1), chr(65 + 127 % 26) . 'A', 'in order';
ok eventually(sub { $server->log =~ /big: 129 polls/ }, 5), 'poll_cb was called once per drained piece';

# the worker is not stuck: keep-alive still works after streams
my $c = $server->connect;
syswrite $c, "GET /later HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n";
my $buffer = '';
my $r1 = read_response($c, buffer => \$buffer);
my $r2 = read_response($c, buffer => \$buffer);
is $r1 && $r1->{body}, "later\n", 'a delayed response on a keep-alive connection';
is $r2 && $r2->{body}, "nonblocking=1\n", 'and the pipelined request after it';

is $server->stop, 0, 'the server stops cleanly';
unlike $server->log, qr/\[error\]/, 'no error logged';

sub dechunk {
    my ($s) = @_;
    my $out = '';
    while ($s =~ s/\A([0-9a-f]+)\r\n//i) {
        my $n = hex $1;
        last if !$n;
        $out .= substr($s, 0, $n, '');
        $s =~ s/\A\r\n//;
    }
    return $out;
}

done_testing;
