# HUP to Kamado under load through nginx (examples/nginx.conf): two
# clients, each over the unix-socket upstream and over the TCP upstream
# with keep-alive, for about 3 s while Kamado gets three HUPs; every
# answer is a 200 from Kamado, no 502 or 504 from nginx, no connection
# error. (Each HUP starts a new generation; the old one drains its
# keep-alive connections to nginx without dropping a request.)
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use List::Util ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Load;
use Kamado::Test::Nginx qw(start_nginx);

my $dir = File::Temp->newdir;
# (a few ms per request: the clients stay busy through every HUP, and
# requests are in flight when the old generation is told to drain)
my $app = 'use Time::HiRes (); sub { Time::HiRes::sleep(0.003); [200, ["Content-Type" => "text/plain"], ["ok $$"]] }';

for my $upstream (qw(unix tcp)) {
    my $server = $upstream eq 'unix'
        ? start_server(app => $app, unix => "$dir/kamado.sock", workers => 2)
        : start_server(app => $app, workers => 2);
    my $nginx = start_nginx($upstream eq 'unix' ? (unix => "$dir/kamado.sock") : (tcp => $server->port));
    my $load = Kamado::Test::Load->start(sub { $nginx->connect }, clients => 2, keepalive => 1);
    my $started = Time::HiRes::time();
    for my $n (2 .. 4) {
        Time::HiRes::sleep(0.7);
        kill HUP => $server->pid;
        ok eventually(sub { $server->log =~ /generation $n serves/ }), "$upstream: HUP, generation $n serves";
        ok $load->wait_for_requests(100 * $n), "$upstream: the load goes on";
    }
    Time::HiRes::sleep(List::Util::max(0, $started + 3 - Time::HiRes::time()));
    my $r = $load->stop;
    cmp_ok $r->{total}, '>=', 100, "$upstream: $r->{total} requests through nginx";
    is_deeply $r->{status}, { 200 => $r->{total} }, "$upstream: every answer a 200 (no 502)"
        or diag explain $r->{status}, $nginx->error_log;
    is_deeply $r->{errors}, [], "$upstream: no connection errors";
    unlike $nginx->error_log, qr/\[error\]/, "$upstream: nginx logged no upstream error";
    is $nginx->stop, 0, "$upstream: nginx stops";
    is $server->stop, 0, "$upstream: Kamado stops";
}
done_testing;
