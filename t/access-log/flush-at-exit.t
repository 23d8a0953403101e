# Lines wait in each worker's buffer (up to 4 KB or a second), and none
# is lost when the worker ends: recycled by --max-reqs-per-child (three
# workers in turn serve nine requests, none of them idle long enough to
# write on its own), and at TERM right after a keep-alive series.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines log_lines);

my $dir = File::Temp->newdir;
my $app = 'sub { [200, ["Content-Type" => "text/plain"], ["$$"]] }';

{
    my $log = "$dir/recycle.log";
    my $server = start_server(workers => 1, args => ['--access-log', $log, '--max-reqs-per-child', 3], app => $app);
    my %pids;
    for my $i (1 .. 9) {
        my $res = read_response($server->send_get("/r$i"));
        $pids{ $res->{body} }++ if $res;
    }
    cmp_ok scalar(keys %pids), '>=', 3, scalar(keys %pids) . ' workers served the nine requests';
    my @lines = wait_lines($log, 9);
    is scalar(@lines), 9, 'recycling: all nine lines are written' or diag @lines;
    is_deeply [map { m{"GET (/r\d) } ? $1 : '?' } @lines], [map { "/r$_" } 1 .. 9], 'in order';
    is $server->stop, 0, 'the server stops cleanly';
}
{
    my $log = "$dir/term.log";
    my $server = start_server(workers => 2, args => ['--access-log', $log], app => $app);
    my $c = $server->connect;
    my $buf = '';
    for my $i (1 .. 20) {
        syswrite $c, "GET /k$i HTTP/1.1\r\nHost: x\r\n\r\n";
        read_response($c, buffer => \$buf) or last;
    }
    note scalar(my @now = log_lines($log)) . ' lines written before TERM';
    is $server->stop, 0, 'TERM: the server stops cleanly';
    my @lines = log_lines($log);
    is scalar(@lines), 20, 'all twenty lines are written by then' or diag @lines;
}
done_testing;
