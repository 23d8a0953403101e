# --status-listen with --pool: the pool's queue depth is the connections
# handed to it and not yet taken; while its one worker is held, two more
# requests for it wait in its queue (depth 2 in JSON and metrics), and
# once it is free they are taken (depth 0). Workers show their pool.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_json metrics);

my $dir = File::Temp->newdir;
local $ENV{KT_DIR} = "$dir";
my $server = status_server(workers => 1, args => ['--pool', 'slow:/slow,workers=1'], app => <<'APP');
sub {
    my $env = shift;
    select undef, undef, undef, 0.01 until $env->{PATH_INFO} ne '/slow/block' || -e "$ENV{KT_DIR}/go";
    [200, ['Content-Type' => 'text/plain'], ["$$\n"]];
}
APP

my $s;
ok eventually(sub { $s = status_json($server); 2 == grep { $_->{state} eq 'idle' } $s->{workers}->@* }), 'two workers idle';
is_deeply [sort map { $_->{pool} } $s->{workers}->@*], ['default', 'slow'], 'one in each pool';
is_deeply $s->{pools}, [{name => 'default', queued => 0}, {name => 'slow', queued => 0}], 'both queues empty';

my $held = $server->send_get('/slow/block');
ok eventually(sub { grep { $_->{pool} eq 'slow' && $_->{state} eq 'app' } status_json($server)->{workers}->@* }),
    'the slow pool\'s worker is held';
my @waiting = map { $server->send_get("/slow/x$_") } 1 .. 2;
ok eventually(sub { $s = status_json($server); $s->{pools}[1]{queued} == 2 }), 'two connections in its queue'
    or diag explain $s->{pools};
is $s->{pools}[0]{queued}, 0, 'none in the default pool\'s';
is metrics($server)->{samples}{'kamado_queue_depth{pool="slow"}'}, 2, 'kamado_queue_depth{pool="slow"} 2';

open my $go, '>', "$dir/go" or die;
close $go;
is read_response($_)->{status}, 200, 'answered' for $held, @waiting;
ok eventually(sub { status_json($server)->{pools}[1]{queued} == 0 }), 'the queue empty again';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
