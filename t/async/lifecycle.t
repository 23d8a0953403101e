# An async worker's life with streams open: HUP during 200 open streams
# (each completes, none lost), TERM with streams longer than
# --graceful-timeout (each is closed at the deadline, the client seeing a
# cut body, not a whole one), and --max-reqs-per-child retiring a worker
# only after its streams end. --request-timeout bounds a stream;
# --stream-heartbeat keeps an idle event stream talking.
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
sub {
    my ($env) = @_;
    my %q = map { split /=/, $_, 2 } grep { /=/ } split /&/, $env->{QUERY_STRING} // '';
    return [200, ['Content-Type' => 'text/plain'], ["pid=$$\n"]] if $env->{PATH_INFO} eq '/pid';
    return sub {
        my ($r) = @_;
        return if $q{silent};    # never answers (--request-timeout)
        my $w = $r->([200, ['Content-Type' => 'text/event-stream']]);
        $w->write("data: start $$\n\n");
        return if $q{idle};      # writes nothing more (--stream-heartbeat)
        my ($i, $t) = (0);
        $t = AE::timer 0.05, 0.05, sub {
            return $w->write("data: " . ++$i . "\n\n") if $i < $q{n};
            undef $t;
            $w->write("data: end\n\n");
            $w->close;
        };
    };
}
APP

# Opens $n streams; returns a hash of their bodies once all are over, and
# calls $when_started once each has its first event.
sub streams {
    my ($port, $path, $n, $when_started) = @_;
    my $cv = AE::cv;
    my (%got, %started, $fired);
    for my $i (1 .. $n) {
        $cv->begin;
        my $h; $h = AnyEvent::Handle->new(
            connect  => ['127.0.0.1', $port],
            timeout  => 60,
            on_error => sub { undef $h; $cv->end },
            on_eof   => sub { undef $h; $cv->end },
            on_read  => sub {
                $got{$i} .= delete $_[0]{rbuf};
                $started{$i} = 1 if $got{$i} =~ /data: start/;
                if (!$fired && keys %started == $n) {
                    $fired = 1;
                    $when_started->();
                }
            },
        );
        $h->push_write("GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }
    $cv->recv;
    return \%got;
}
sub whole { $_[0] =~ /data: end\n\n\r\n0\r\n\r\n\z/ }

# HUP during 200 open streams of 2 s
my $server = start_server(app => $APP, workers => 2, args => ['--async']);
my $hup_at;
my $got = streams($server->port, '/s?n=40', 200, sub { $hup_at = Time::HiRes::time(); kill HUP => $server->pid });
ok $hup_at, 'HUP sent once all 200 streams had started';
is scalar(grep { whole($_) } values %$got), 200, 'every stream completed, whole, across the HUP';
ok eventually(sub { my $r = read_response($server->send_get('/pid')); $r && $r->{status} == 200 }), 'the new generation serves';
is $server->stop, 0, 'stops';

# TERM with streams longer than --graceful-timeout
$server = start_server(app => $APP, workers => 1, args => ['--async', '--graceful-timeout', 2]);
my $term_at;
$got = streams($server->port, '/s?n=2000', 20, sub { $term_at = Time::HiRes::time(); kill TERM => $server->pid });
my $ended = Time::HiRes::time();
is scalar(keys %$got), 20, 'the 20 streams were all answered';
is scalar(grep { whole($_) } values %$got), 0, 'none looks whole: each was cut';
cmp_ok $ended - $term_at, '<', 8, sprintf 'closed at the graceful deadline (%.1f s after TERM)', $ended - $term_at;
ok defined $server->wait_exit(10), 'the server exited';

# --max-reqs-per-child 3: the worker retires after its three streams end
$server = start_server(app => $APP, workers => 1, args => ['--async', '--max-reqs-per-child', 3]);
my $first_pid;
$got = streams($server->port, '/s?n=20', 3, sub {});
is scalar(grep { whole($_) } values %$got), 3, 'three streams from a worker at its request limit, each whole';
my %pids = map { /data: start (\d+)/ ? ($1 => 1) : () } values %$got;
is scalar(keys %pids), 1, 'from one worker';
my $next = read_response($server->send_get('/pid'));
like $next->{body}, qr/^pid=(\d+)$/, 'the next request is served';
my ($next_pid) = $next->{body} =~ /pid=(\d+)/;
ok !$pids{$next_pid}, 'by a new worker';
is $server->stop, 0, 'stops';

# --request-timeout and --stream-heartbeat
$server = start_server(app => $APP, workers => 1, args => ['--async', '--request-timeout', 1, '--stream-heartbeat', 0.3]);
my $t0 = Time::HiRes::time();
my $silent = read_response($server->send_get('/s?silent=1'), timeout => 10);
is $silent && $silent->{status}, 504, 'an app that never answers gets 504 at --request-timeout';
cmp_ok Time::HiRes::time() - $t0, '<', 3, 'at about a second';
my $idle = $server->send_get('/s?idle=1');
my $raw = Kamado::Test::read_all($idle, 10);
like $raw, qr/data: start \d+\n\n\r\n3\r\n:\n\n\r\n/, 'an idle event stream gets a heartbeat comment';
unlike $raw, qr/\r\n0\r\n\r\n\z/, 'and is closed, cut, at --request-timeout';
like $server->log, qr/past --request-timeout/, 'which is logged';
is $server->stop, 0, 'stops';

done_testing;
