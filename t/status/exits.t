# --status-listen counts worker exits by cause: a worker killed from
# outside (crash), one killed by --request-timeout, one that asked to go
# (psgix.harakiri), one retired by TTOU; each is replaced or retired and
# its requests stay counted.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_json metrics);

my $server = status_server(workers => 2, args => ['--request-timeout', 1], app => <<'APP');
sub {
    my $env = shift;
    if ($env->{PATH_INFO} eq '/hang') {
        local $SIG{USR2} = 'IGNORE';    # deaf to the soft stop: killed 2 s later
        sleep 30;
    }
    $env->{'psgix.harakiri.commit'} = 1 if $env->{PATH_INFO} eq '/harakiri';
    [200, ['Content-Type' => 'text/plain'], ["$$\n"]];
}
APP

sub exits { status_json($server)->{worker_exits} }
sub two_idle { eventually(sub { 2 == grep { $_->{state} eq 'idle' } status_json($server)->{workers}->@* }) }

ok two_idle(), 'two idle workers';
my ($victim) = $server->workers;
kill KILL => $victim;
ok eventually(sub { exits()->{crash} == 1 }), 'a worker killed from outside: crash 1';
ok two_idle(), 'replaced';

my $c = $server->send_get('/hang');
ok eventually(sub { exits()->{request_timeout} == 1 }, 15), 'a worker killed by --request-timeout: request_timeout 1';
ok two_idle(), 'replaced';

is read_response($server->send_get('/harakiri'))->{status}, 200, 'a request that asks its worker to go';
ok eventually(sub { exits()->{harakiri} == 1 }), 'harakiri 1';
ok two_idle(), 'replaced';

kill TTOU => $server->pid;
ok eventually(sub { exits()->{ttou} == 1 }), 'TTOU: ttou 1';
ok eventually(sub { 1 == @{ status_json($server)->{workers} } }), 'one worker left';
my $e = exits();
is $e->{$_}, 0, "$_ 0" for qw(max_requests max_age max_rss idle graceful_timeout load_failed stop);
my $m = metrics($server)->{samples};
is $m->{'kamado_worker_exits_total{cause="crash"}'}, 1, 'in the metrics too';
is $m->{'kamado_requests_total{class="2xx"}'}, 1, 'the harakiri request still counted';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
