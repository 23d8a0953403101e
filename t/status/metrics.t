# --status-listen: /metrics parsed line by line as Prometheus text (HELP
# and TYPE before each family, counters ending in _total, no repeats);
# after N requests of each status class the counters rise by exactly N,
# the duration histogram is cumulative and its +Inf bucket and _count are
# the total; the counts of workers recycled by --max-reqs-per-child stay
# counted, and their exits show up by cause.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use List::Util qw(sum);
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server metrics wait_file_app);

my $dir = File::Temp->newdir;
local $ENV{KT_DIR} = "$dir";
my $server = status_server(workers => 1, app => wait_file_app(), args => ['--max-reqs-per-child', 5]);

# the worker reports itself idle once it has started: wait for that, not
# only for the status listener (a busy machine starts it late)
my $m;
eventually(sub { $m = metrics($server); ($m->{samples}{'kamado_workers{state="idle"}'} // 0) == 1 });
is_deeply $m->{errors}, [], 'every line well-formed' or diag $m->{text};
like $m->{type}, qr{^text/plain; version=0\.0\.4}, 'the exposition format\'s content type';
my %types = $m->{types}->%*;
is $types{kamado_requests_total}, 'counter', 'kamado_requests_total is a counter';
is $types{kamado_request_duration_seconds}, 'histogram', 'the duration histogram';
is $types{$_}, 'gauge', "$_ is a gauge" for qw(kamado_workers kamado_queue_depth);
is $types{$_}, 'counter', "$_ is a counter"
    for qw(kamado_worker_exits_total kamado_received_bytes_total kamado_sent_bytes_total kamado_generation_starts_total);
my %before = $m->{samples}->%*;
is $before{'kamado_workers{state="idle"}'}, 1, 'one idle worker';
is $before{'kamado_queue_depth{pool="default"}'}, 0, 'the default pool\'s queue, empty';
is $before{'kamado_generation_starts_total{cause="start"}'}, 1, 'one generation started';

# 7 x 200, 3 x 404, 2 x 503, 1 x 301, each on its own connection; the
# worker is replaced after each 4 or 5
my %sent = ('2xx' => 7, '4xx' => 3, '5xx' => 2, '3xx' => 1);
my @paths = ((('/') x 7), (('/status/404') x 3), (('/status/503') x 2), '/status/301');
for my $path (@paths) {
    my $res = read_response($server->send_get($path));
    ok $res, "GET $path answered" or last;
}
my %after;
ok eventually(sub {
    $m = metrics($server);
    %after = $m->{samples}->%*;
    ($after{'kamado_request_duration_seconds_count'} // 0) == @paths
        && ($after{'kamado_worker_exits_total{cause="max_requests"}'} // 0) >= 2;
}), 'all counted, and the recycled workers\' exits' or diag $m->{text};
is_deeply $m->{errors}, [], 'every line still well-formed';
for my $class (qw(1xx 2xx 3xx 4xx 5xx)) {
    my $key = qq{kamado_requests_total{class="$class"}};
    is $after{$key} - $before{$key}, $sent{$class} // 0, "$class: rose by " . ($sent{$class} // 0);
}
my @buckets = map { [$_ =~ /le="([^"]+)"/, $after{$_}] } grep { /^kamado_request_duration_seconds_bucket/ } keys %after;
@buckets = sort { ($a->[0] eq '+Inf' ? 9e9 : $a->[0]) <=> ($b->[0] eq '+Inf' ? 9e9 : $b->[0]) } @buckets;
is $buckets[-1][0], '+Inf', 'the last bucket is +Inf';
ok !(grep { $buckets[$_][1] < $buckets[ $_ - 1 ][1] } 1 .. $#buckets), 'buckets are cumulative (never fall)';
is $buckets[-1][1], @paths, '+Inf holds every request';
is $after{kamado_request_duration_seconds_count}, sum(map { $after{qq{kamado_requests_total{class="$_"}}} } qw(1xx 2xx 3xx 4xx 5xx)),
    '_count is the sum of the classes';
ok $after{kamado_request_duration_seconds_sum} >= 0, '_sum';
cmp_ok $after{kamado_received_bytes_total} - $before{kamado_received_bytes_total}, '>=', length("GET / HTTP/1.1\r\n") * @paths, 'bytes in rose';
cmp_ok $after{kamado_sent_bytes_total} - $before{kamado_sent_bytes_total}, '>=', length("HTTP/1.1 200 OK\r\n") * @paths, 'bytes out rose';

# a 400 the event loop answers itself is counted too
my $c = $server->connect;
syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n";
like read_response($c)->{status}, qr/^400$/, 'a malformed request: 400 from the loop';
ok eventually(sub { metrics($server)->{samples}{'kamado_requests_total{class="4xx"}'} == $before{'kamado_requests_total{class="4xx"}'} + 4 }),
    'counted as 4xx';

is $server->stop, 0, 'the server stops cleanly';
done_testing;
