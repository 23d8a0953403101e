# The error log of a real server, parsed line by line: each of kamado's
# lines starts with an ISO 8601 time, its level, the role and pid of the
# process that wrote it (checked against the real processes), and inside
# a request the request's id, the same the app sees as kamado.request_id;
# ids are unique across 100 requests served by 2 workers. The app's own
# STDERR is passed as it wrote it, without the prefix.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use POSIX ();
use Time::Local ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Log qw(log_lines);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/cleanup handler died: cleanup for /);

my $server = start_server(workers => 2, args => ['--log-level', 'debug'], app => <<'APP');
use Time::HiRes ();
sub {
    my $env = shift;
    my $id = $env->{'kamado.request_id'};
    warn "app says $id\n";
    # a server line about this request: the cleanup handler's death
    push $env->{'psgix.cleanup.handlers'}->@*, sub { die "cleanup for $id\n" };
    Time::HiRes::sleep(0.02);    # (so that the requests spread over both workers)
    [200, ['Content-Type' => 'text/plain'], ["$id $$"]];
}
APP
my $started = time;

# 100 requests, 10 connections at a time
my (%served, @ids);
for my $batch (1 .. 10) {
    my @c = map { $server->send_get("/r$batch-$_") } 1 .. 10;
    for my $c (@c) {
        my $res = read_response($c);
        my ($id, $pid) = split / /, $res && $res->{body} // '';
        push @ids, $id;
        $served{$id} = $pid;
    }
}
is scalar(grep { defined && length } @ids), 100, '100 answers, each with a request id';
my %count;
$count{$_}++ for @ids;
is scalar(keys %count), 100, 'all of them different';
my %by_worker;
$by_worker{ $served{$_} }++ for keys %served;
is scalar(keys %by_worker), 2, 'served by both workers';
my @workers = sort $server->workers;
is_deeply [sort keys %by_worker], \@workers, 'the workers the test sees in /proc';
my @generations = $server->generations;
is scalar @generations, 1, 'one generation';

# the cleanup handlers run after the answers are sent: wait for their lines
eventually(sub { (() = $server->log =~ /cleanup handler died/g) >= 100 }, 60);
my $text = $server->log;
my @lines = log_lines($text);
my @other = grep { !/^\d{4}-/ } split /\n/, $text;
is_deeply [sort @other], [sort map { "app says $_" } @ids], "the app's own lines, as it wrote them, and no others";
is scalar(@lines) + scalar(@other), scalar(() = $text =~ /\n/g), 'every other line is one of kamado\'s';

# the time: ISO 8601, local with its offset, when the test ran
my $bad_time = grep {
    my ($y, $mo, $d, $h, $mi, $s, $sign, $oh, $om) = $_->{time} =~ /\A(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.\d{3}([+-])(\d\d):(\d\d)\z/;
    my $utc = Time::Local::timegm($s, $mi, $h, $d, $mo - 1, $y) - ($sign eq '-' ? -1 : 1) * ($oh * 3600 + $om * 60);
    $utc < $started - 60 || $utc > time + 5;
} @lines;
is $bad_time, 0, 'every time is now, with its UTC offset';
my $offset = POSIX::strftime('%z', localtime) =~ s/(\d\d)\z/:$1/r;
like $lines[0]{time}, qr/\Q$offset\E\z/, "the local offset ($offset)";

# who wrote what
my ($ready) = grep { $_->{message} =~ /^accepting connections/ } @lines;
ok $ready, 'the ready line';
is "$ready->{role} $ready->{pid}", 'supervisor ' . $server->pid, 'written by the supervisor, with its pid';
my ($loading) = grep { $_->{message} =~ /^generation 1 started/ } @lines;
is $loading && "$loading->{level} $loading->{role} $loading->{pid}", "debug generation $generations[0]",
    'the generation says it started (debug), with its pid';
my @started = grep { $_->{message} =~ /^worker of generation 1 started/ } @lines;
is_deeply [sort map { $_->{pid} } @started], \@workers, 'each worker says it started, with its pid';
is_deeply [map { "$_->{level} $_->{role}" } @started], ['debug worker', 'debug worker'], 'at debug, as a worker';
ok !(grep { !$_ || defined $_->{id} } $ready, $loading, @started), 'no request id outside a request';

# the lines about requests
my @errors = grep { $_->{message} =~ /cleanup handler died/ } @lines;
is scalar @errors, 100, 'a line for each request';
my $mismatch = grep {
    my ($m_id) = $_->{message} =~ /^GET \/r\S+ HTTP\/1\.1: cleanup handler died: cleanup for (\S+)$/;
    !defined $_->{id} || !defined $m_id || $_->{id} ne $m_id || $_->{level} ne 'error' || $_->{role} ne 'worker'
        || ($served{ $_->{id} } // '') ne $_->{pid};
} @errors;
is $mismatch, 0, "each an error by the worker that served it, with the app's request id";
my %logged;
$logged{ $_->{id} }++ for @errors;
is_deeply [sort keys %logged], [sort @ids], 'the ids logged are the ids served';
like $ids[0], qr/\A[0-9a-f]{13}-\d+-\d+\z/, 'an id is time, pid and a counter';

is $server->stop, 0, 'TERM: exit 0';
done_testing;
