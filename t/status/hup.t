# --status-listen during a HUP: the old generation, draining with a
# request in flight, and the new one, serving, both show with their
# workers; once the old one is gone, what it counted stays counted.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_json wait_file_app);

my $dir = File::Temp->newdir;
local $ENV{KT_DIR} = "$dir";
my $server = status_server(workers => 2, app => wait_file_app());

is read_response($server->send_get('/'))->{status}, 200, "a request to generation 1" for 1 .. 3;
my $held = $server->send_get('/block?go');
my $s;
ok eventually(sub { $s = status_json($server); grep { $_->{state} eq 'app' } $s->{workers}->@* }),
    'generation 1 holds a request';
my $old_gen = $s->{generations}[0]{pid};

kill HUP => $server->pid;
ok eventually(sub {
    $s = status_json($server);
    my %state = map { ($_->{number} => $_->{state}) } $s->{generations}->@*;
    ($state{1} // '') eq 'draining' && ($state{2} // '') eq 'serving';
}), 'both generations: 1 draining, 2 serving' or diag explain $s->{generations};
my @gen1 = grep { $_->{generation} == 1 } $s->{workers}->@*;
my @gen2 = grep { $_->{generation} == 2 } $s->{workers}->@*;
ok +(grep { $_->{state} eq 'app' && $_->{request} eq 'GET /block?' } @gen1), 'generation 1\'s worker still in the app'
    or diag explain $s->{workers};
my @shown;
ok eventually(sub {
    @shown = grep { $_->{generation} == 2 && $_->{state} eq 'idle' } status_json($server)->{workers}->@*;
    @shown == 2;
}), 'generation 2\'s two workers idle';
# (generation 1's idle worker may exit at any moment: the held one cannot)
push @shown, grep { $_->{state} eq 'app' } @gen1;
my @pids = $server->workers;
is scalar(grep { my $p = $_->{pid}; grep { $_ == $p } @pids } @shown), 3,
    'those two and generation 1\'s held one are live processes of the generations';
cmp_ok $s->{requests}{by_class}{'2xx'}, '>=', 3, 'the requests counted so far';

open my $go, '>', "$dir/go" or die;
close $go;
is read_response($held)->{status}, 200, 'the held request answered';
ok eventually(sub { $s = status_json($server); 1 == @{ $s->{generations} } }), 'generation 1 gone'
    or diag explain $s->{generations};
is $s->{generations}[0]{number}, 2, 'generation 2 left';
ok !(grep { $_->{generation} == 1 } $s->{workers}->@*), 'no worker of generation 1';
is $s->{requests}{by_class}{'2xx'}, 4, 'its four requests still counted';
is $s->{generation_starts}{hup}, 1, 'a generation started by HUP';
is $s->{generation_exits}{exited}, 1, 'one exited';
is $s->{worker_exits}{stop}, 2, 'its two workers stopped';
ok !kill(0, $old_gen), 'the old generation process is gone';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
