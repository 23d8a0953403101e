# --max-rss in an async worker: once it has grown past the limit (looked
# at once a second, not per request: it serves many at once) it takes no
# more requests, a new worker takes them, and it exits only once its open
# streams have ended: each completes whole, none is cut. The log says so,
# with how many streams it waits for.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use AnyEvent;
use AnyEvent::Handle;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);

my $server = start_server(workers => 1, args => ['--async', '--max-rss', 150], app => <<'APP');
use AnyEvent;
my @hoard;
my $mb = 200;    # a variable: a constant 'x' x N would be built at compile time, in the generation
sub {
    my ($env) = @_;
    if ($env->{PATH_INFO} eq '/grow') {
        push @hoard, 'x' x ($mb * 1024 * 1024);    # kept: the worker grows
        return [200, ['Content-Type' => 'text/plain'], ["pid=$$\n"]];
    }
    return [200, ['Content-Type' => 'text/plain'], ["pid=$$\n"]] if $env->{PATH_INFO} eq '/pid';
    return sub {
        my $w = $_[0]->([200, ['Content-Type' => 'text/event-stream']]);
        $w->write("data: start $$\n\n");
        my ($i, $t) = (0);
        $t = AE::timer 0.1, 0.1, sub {
            return $w->write("data: " . ++$i . "\n\n") if $i < 40;
            undef $t;
            $w->write("data: end\n\n");
            $w->close;
        };
    };
}
APP

sub pid_of { my ($r) = @_; $r && $r->{body} =~ /pid=(\d+)/ ? $1 : 0 }

my $old = pid_of(read_response($server->send_get('/pid')));
ok $old, 'the worker serves';

# three streams of about 4 s, then the request that grows the worker
my $cv = AE::cv;
my (%got, $grown, $retired, $new);
for my $i (1 .. 3) {
    $cv->begin;
    my $h;
    $h = AnyEvent::Handle->new(
        connect  => ['127.0.0.1', $server->port],
        timeout  => 30,
        on_error => sub { undef $h; $cv->end },
        on_eof   => sub { undef $h; $cv->end },
        on_read  => sub {
            $got{$i} .= delete $_[0]{rbuf};
            return if $grown || 3 > grep { /data: start/ } values %got;
            # (once all three run: the worker grows, and while they go on,
            # a new worker takes the next requests)
            $grown = pid_of(read_response($server->send_get('/grow'), timeout => 10));
            my $deadline = Time::HiRes::time() + 3;
            do { $new = pid_of(read_response($server->send_get('/pid'), timeout => 10)) }
                until $new != $old || Time::HiRes::time() > $deadline;
            $retired = $server->log =~ /over --max-rss/ && kill 0, $old;
        },
    );
    $h->push_write("GET /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
}
$cv->recv;
is $grown, $old, 'the request that grows the worker is answered by it';
isnt $new, $old, 'the next requests go to a new worker while its streams run';
ok $retired, 'the old worker, over --max-rss, was still there then';
is scalar(grep { /data: start $old\n\n.*data: 40\n\n.*data: end\n\n\r\n0\r\n\r\n\z/s } values %got), 3,
    'its three streams each completed, whole';
ok eventually(sub { !kill 0, $old }, 10), 'then it exited';
like $server->log,
    qr/\[warn\] worker $old: resident size \d+ MB is over --max-rss 150 MB; replacing this worker once its 3 streams end$/m,
    'the log says why, and that it waits for its streams';
unlike $server->log, qr/exited with/, 'the old worker exited cleanly';
is $server->stop, 0, 'stops';
done_testing;
