# 100 keep-alive connections open at once against 4 workers: a request on
# each, sent in random order, all get their 200; a second round on the same
# 100 connections also all succeed. Idle connections cost a descriptor,
# not a worker, so nothing waits on a busy worker. Bounded in time.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use List::Util qw(shuffle);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 4, app => 'sub { [200, ["Content-Type" => "text/plain"], ["$$ $_[0]{PATH_INFO}"]] }');
my $start = Time::HiRes::time();
my @conns = map { $server->connect } 1 .. 100;
my %pids;
for my $round (1, 2) {
    my @order = shuffle 0 .. $#conns;
    syswrite $conns[$_], "GET /c$_/r$round HTTP/1.1\r\nHost: x\r\n\r\n" for @order;
    my $deadline = Time::HiRes::time() + 10;
    my ($ok, @bad) = (0);
    for (shuffle @order) {
        my $left = $deadline - Time::HiRes::time();
        my $res = read_response($conns[$_], timeout => $left > 0.1 ? $left : 0.1);
        my ($pid, $path) = split / /, ($res && $res->{body}) // '';
        if ($res && $res->{status} == 200 && $path eq "/c$_/r$round") { $ok++; $pids{$pid}++ } else { push @bad, $_ }
    }
    is $ok, 100, "round $round: all 100 connections answered, each with its own body"
        or diag "unanswered connections: @bad";
}
my $elapsed = Time::HiRes::time() - $start;
cmp_ok $elapsed, '<', 10, sprintf 'in %.2f s', $elapsed;
note 'requests per worker: ' . join ', ', map { "$_=$pids{$_}" } sort keys %pids;
unlike $server->log, qr{exited with|worker failed}, 'no worker failed';
done_testing;
