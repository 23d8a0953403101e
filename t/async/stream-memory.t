# What an open stream costs an async worker, with an app of the shape of
# examples/ai-stream.psgi (the responder and the writer kept by the app's
# callbacks, a cancel callback given to kamado.on_close) minus its
# upstream call: the worker's private memory with N streams open, less
# what it was warm, per stream. The loop's read buffer and header table
# go back to the pool when a stream begins, and the responder and
# kamado.on_close are not Perl closures; with any of the three undone a
# stream costs more than the bound.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use POSIX ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Streams qw(burst private_kib);

my $BOUND_KIB = 5.9;
my $N = 500;

my $server = start_server(workers => 1, args => ['--async'], app => <<'APP');
use AnyEvent;
my @waiting;    # the streams' ends, for /end
sub {
    my ($env) = @_;
    return [200, ['Content-Type' => 'text/plain'], ["pid=$$\n"]] if $env->{PATH_INFO} eq '/pid';
    if ($env->{PATH_INFO} eq '/end') {
        $_->() for splice @waiting;
        return [200, ['Content-Type' => 'text/plain'], ["ended\n"]];
    }
    return sub {
        my ($responder) = @_;
        my ($writer, $t);
        $env->{'kamado.on_close'}->(sub { undef $t });
        $writer = $responder->([200, ['Content-Type' => 'text/event-stream', 'Cache-Control' => 'no-cache']]);
        $writer->write("data: start\n\n");
        push @waiting, sub {
            $t = AE::timer 0, 0, sub {
                undef $t;
                return $responder->([500, [], []]) unless $writer;
                $writer->write("data: end\n\n");
                $writer->close;
            };
        };
    };
}
APP

my ($pid) = (read_response($server->send_get('/pid')) // {body => ''})->{body} =~ /pid=(\d+)/;
ok $pid, 'the worker serves';

# Seconds since the process started.
sub age {
    my ($pid) = @_;
    my $stat = do { open my $fh, '<', "/proc/$pid/stat" or return 0; local $/; <$fh> };
    my $start = (split ' ', substr($stat, rindex($stat, ')') + 2))[19];
    my $uptime = do { open my $fh, '<', '/proc/uptime' or return 0; (split ' ', <$fh>)[0] };
    return $uptime - $start / POSIX::sysconf(POSIX::_SC_CLK_TCK());
}

# (its once-a-second tick runs idle first: with no stream yet it must not warn)
ok eventually(sub { age($pid) > 2.5 }, 30), 'the worker has been idle through its first ticks';

# Opens $n streams; once every one has its first event, measures, then
# ends them all. Returns the memory measured and how many ended whole.
sub open_and_end {
    my ($n) = @_;
    my $open_kib;
    my $got = burst(
        port       => $server->port,
        n          => $n,
        started    => qr/data: start/,
        on_started => sub {
            $open_kib = private_kib($pid);
            read_response($server->send_get('/end'));
        }
    );
    return ($open_kib, scalar grep {/data: end/} values %$got);
}

# warm: the code paths run, the pools and arenas made
my (undef, $whole) = open_and_end(20);
is $whole, 20, 'a warm-up of 20 streams ended whole';
my $warm = private_kib($pid);
my ($open, $ended) = open_and_end($N);
is $ended, $N, "all $N streams ended whole";
my $per = ($open - $warm) / $N;
cmp_ok $per, '<', $BOUND_KIB,
    sprintf('an open stream costs the worker %.2f KiB (%d KiB warm, %d KiB with %d open)', $per, $warm, $open, $N);

unlike $server->log, qr/^Use of uninitialized value/m, 'the worker warns of nothing';

is $server->stop, 0, 'stops';
done_testing;
