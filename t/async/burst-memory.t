# After a burst of streams an async worker gives back the memory they
# freed: once most of the burst has ended, its private memory falls
# below where the burst took it, instead of staying there (what the
# allocator keeps is the worker's, and --max-rss counts it).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Streams qw(burst private_kib);

my $server = start_server(workers => 1, args => ['--async'], app => <<'APP');
use AnyEvent;
sub {
    my ($env) = @_;
    return [200, ['Content-Type' => 'text/plain'], ["pid=$$\n"]] if $env->{PATH_INFO} eq '/pid';
    return sub {
        my $w = $_[0]->([200, ['Content-Type' => 'text/event-stream']]);
        # what an app holds for a stream (an upstream call's buffers):
        # many small pieces, as Perl allocates them
        my @state = map { 'y' x 200 } 1 .. 300;
        $w->write("data: start\n\n");
        my $t; $t = AE::timer 2, 0, sub { undef $t; @state = (); $w->write("data: end\n\n"); $w->close };
    };
}
APP

my ($pid) = (read_response($server->send_get('/pid')) // {body => ''})->{body} =~ /pid=(\d+)/;
ok $pid, 'the worker serves';

# 300 streams at once; the worker's memory measured while all are open
my $n = 300;
my $peak;
my $got =
    burst(port => $server->port, n => $n, started => qr/data: start/, on_started => sub { $peak = private_kib($pid) });
is scalar(grep { /data: end/ } values %$got), $n, "all $n streams ended whole";
ok $peak, "the worker's private memory with all $n open: " . ($peak // '?') . ' KiB';

# (given back once a second at most: the worker's tick)
my $after;
ok eventually(sub { $after = private_kib($pid); $after < $peak - 4096 }, 10),
    "most of what the burst took is given back: $peak KiB with the streams open, $after KiB after";

is $server->stop, 0, 'stops';
done_testing;
