# --status-listen: /status.json, decoded, names the real workers (the
# generation's children, from /proc) with their memory, and shows a
# request in flight: its worker in state app, with the request line and
# an age that grows.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_json metrics wait_file_app);

my $dir = File::Temp->newdir;
local $ENV{KT_DIR} = "$dir";
my $server = status_server(workers => 2, app => wait_file_app());

my @workers = sort { $a <=> $b } $server->workers;
my $s;
ok eventually(sub { $s = status_json($server); @{ $s->{workers} } == 2 && !grep { $_->{state} ne 'idle' } $s->{workers}->@* }),
    'two idle workers' or diag explain $s;
is_deeply [sort { $a <=> $b } map { $_->{pid} } $s->{workers}->@*], \@workers, 'their pids are the generation\'s children';
is $s->{server}{pid}, $server->pid, 'the supervisor\'s pid';
is scalar @{ $s->{generations} }, 1, 'one generation';
is $s->{generations}[0]{number}, 1, 'number 1';
is $s->{generations}[0]{state}, 'serving', 'serving';
ok +(grep { $_ == $s->{generations}[0]{pid} } $server->generations), 'its pid is a child of the supervisor';
is_deeply [map { $_->{name} } $s->{pools}->@*], ['default'], 'the default pool';
ok eventually(sub {
    $s = status_json($server);
    !grep { !$_->{memory}{private} || !$_->{memory}{shared} || !$_->{memory}{pss} } $s->{workers}->@*;
}), 'each worker\'s private, shared and proportional memory' or diag explain $s->{workers};
cmp_ok $s->{server}{uptime}, '>', 0, 'uptime';
{
    my $m = metrics($server)->{samples};
    my $pss = 0;
    $pss += $_->{memory}{pss} for $s->{workers}->@*;
    cmp_ok $m->{'kamado_worker_memory_bytes{kind="pss"}'}, '>=', $pss / 2, 'their Pss summed in /metrics';
}

# a request in flight
my $c = $server->send_get('/block?go&secret=<x>');
my $busy;
ok eventually(sub {
    $s = status_json($server);
    ($busy) = grep { $_->{state} eq 'app' } $s->{workers}->@*;
    $busy;
}), 'a worker in state app' or diag explain $s;
is $busy->{request}, 'GET /block?', 'with the request line, its query hidden';
ok +(grep { $_ == $busy->{pid} } @workers), 'a real worker';
my $age = $busy->{age};
ok defined $age && $age >= 0, 'the request\'s age';
ok eventually(sub {
    my ($w) = grep { $_->{pid} == $busy->{pid} } status_json($server)->{workers}->@*;
    $w->{age} > $age + 0.2;
}), 'growing while it runs';
my ($idle) = grep { $_->{pid} != $busy->{pid} } $s->{workers}->@*;
is $idle->{state}, 'idle', 'the other worker idle';
is $idle->{age}, undef, 'with no request age';
is $s->{workers_by_state}{app}, 1, 'workers_by_state: 1 app';

open my $go, '>', "$dir/go" or die;
close $go;
my $res = read_response($c);
is $res && $res->{body}, "$busy->{pid}\n", 'answered by that worker';
ok eventually(sub {
    my ($w) = grep { $_->{pid} == $busy->{pid} } status_json($server)->{workers}->@*;
    $w->{state} eq 'idle' && $w->{requests} == 1;
}), 'then idle, one request served';
$s = status_json($server);
is $s->{requests}{total}, 1, 'one request in the totals';
is $s->{requests}{by_class}{'2xx'}, 1, 'a 2xx';
cmp_ok $s->{bytes}{in}, '>=', length("GET /block?go&secret=<x> HTTP/1.1\r\n"), 'bytes in';
cmp_ok $s->{bytes}{out}, '>', length($busy->{pid}), 'bytes out';
cmp_ok $s->{requests}{per_second}, '>', 0, 'requests per second since start';
ok eventually(sub { status_json($server)->{requests}{per_second_recent} > 0 }), 'and over the last minute';

is $server->stop, 0, 'the server stops cleanly';
done_testing;
