# A blocked loop is found, not guessed: an app that blocks in an async
# worker is logged with its request ("event loop blocked 800 ms in GET
# /block") and a callback of the app that blocks is logged too; both are
# counted in /metrics (kamado_loop_blocked_total). A quick app is not.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use HTTP::Tiny;
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Plackup qw(free_port);

my $status_port = free_port();
my $server = start_server(workers => 1, args => ['--async', '--status-listen', "127.0.0.1:$status_port"], app => <<'APP');
use AnyEvent;
sub {
    my ($env) = @_;
    if ($env->{PATH_INFO} eq '/block') {
        select undef, undef, undef, 0.8;    # a blocking call in an async worker
        return [200, ['Content-Type' => 'text/plain'], ["blocked\n"]];
    }
    if ($env->{PATH_INFO} eq '/callback') {
        return sub {
            my ($r) = @_;
            my $t; $t = AE::timer 0.05, 0, sub {
                undef $t;
                select undef, undef, undef, 0.7;
                $r->([200, ['Content-Type' => 'text/plain'], ["late\n"]]);
            };
        };
    }
    [200, ['Content-Type' => 'text/plain'], ["quick\n"]];
}
APP

is read_response($server->send_get('/quick'))->{body}, "quick\n", 'a quick request';
is read_response($server->send_get('/block'))->{body}, "blocked\n", 'a blocking app still answers';
ok eventually(sub { $server->log =~ /event loop blocked (\d+) ms in GET \/block/ && $1 >= 700 }, 5),
    'the blocked loop is logged with the request and the time';
is read_response($server->send_get('/callback'))->{body}, "late\n", 'a blocking callback';
ok eventually(sub { $server->log =~ /event loop blocked (\d+) ms in a callback of the app/ && $1 >= 600 }, 5),
    'is logged too';
unlike $server->log, qr/blocked \d+ ms in GET \/quick/, 'the quick request is not';
my $http = HTTP::Tiny->new(timeout => 10);
my $metrics = '';
ok eventually(sub { ($metrics = $http->get("http://127.0.0.1:$status_port/metrics")->{content} // '')
        =~ /^kamado_loop_blocked_total 2$/m }), 'both counted in /metrics' or diag $metrics;
is $server->stop, 0, 'stops';

done_testing;
