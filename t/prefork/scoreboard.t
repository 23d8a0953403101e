# --scoreboard FILE: each worker's slot, read from the file as an outside
# tool would, shows the state of the request it serves (app, reading a
# body, writing a response) with its request line and pid, then idle with
# one more request served; idle keep-alive connections are counted; a
# killed worker's slot is cleared and given to its replacement. Every step
# waits for the scoreboard or for a file, never for a fixed time.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::HTTP qw(read_until);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";

my $dir = File::Temp->newdir;
my $file = "$dir/scoreboard";
local $ENV{KT_DIR} = "$dir";
my $server = start_server(workers => 2, args => ['--scoreboard', $file, '--expect-to-app'], app => <<'APP');
sub {
    my $env = shift;
    my $wait = sub {
        my $f = "$ENV{KT_DIR}/$_[0]";
        select undef, undef, undef, 0.01 until -e $f;
    };
    my $p = $env->{PATH_INFO};
    if ($p eq '/block') {
        $wait->('go');
    } elsif ($p eq '/upload') {
        $env->{'psgi.input'}->read(my $body, 10);
        return [200, ['Content-Type' => 'text/plain'], ["$$ $body"]];
    } elsif ($p eq '/stream') {
        return sub {
            my $w = $_[0]->([200, ['Content-Type' => 'text/plain']]);
            $w->write("$$ ");
            $wait->('stream-go');
            $w->write('done');
            $w->close;
        };
    }
    [200, ['Content-Type' => 'text/plain'], [$$]];
}
APP

my $board = Kamado::Scoreboard->attach($file);
ok $board, 'the scoreboard file can be attached' or BAIL_OUT("attach $file: $!");
is $board->generation_pid, ($server->generations)[0], 'it names the generation process of these workers';
is sprintf('%o', (stat $file)[2] & 07777), '600', 'readable by its owner only (request lines may hold secrets)';
cmp_ok $board->size, '>=', 2, 'a slot per worker at least';

sub slots { grep { $_->{state} ne 'free' } $board->slots }
sub slot_of { my ($pid) = @_; (grep { $_->{pid} == $pid } $board->slots)[0] }
sub in_state { my ($state, $request) = @_; grep { $_->{state} eq $state && $_->{request} eq $request } slots() }

ok eventually(sub { (grep { $_->{state} eq 'idle' } slots()) == 2 }), 'two workers, idle'
    or diag explain [slots()];
is_deeply [sort { $a <=> $b } map { $_->{pid} } slots()], [sort { $a <=> $b } $server->workers],
    'their slots hold the pids of the generation\'s children';
is_deeply [sort map { $_->{generation} } slots()], [1, 1], 'generation 1';

# in the app; a long request line is cut at 95 bytes
my $target = '/block?x=' . ('a' x 200);
my $line = substr "GET $target", 0, 95;
my $c = $server->send_get($target);
my $busy;
ok eventually(sub { ($busy) = in_state('app', $line); $busy }), 'state app, with the request line (cut at 95 bytes)'
    or diag explain [slots()];
ok +(grep { $_ == $busy->{pid} } $server->workers), 'the pid is a worker\'s';
is $busy->{connections}, 1, 'one connection';
my $before = $busy->{requests};
open my $go, '>', "$dir/go" or die;
close $go;
my $res = read_response($c);
is $res && $res->{body}, $busy->{pid}, 'answered by that worker';
ok eventually(sub { my $s = slot_of($busy->{pid}); $s->{state} eq 'idle' && $s->{requests} == $before + 1 }),
    'then idle, with one more request served';
is slot_of($busy->{pid})->{request}, $line, 'the last request line stays';

# reading a body the app asked for (with --expect-to-app, Expect:
# 100-continue reaches the app first)
$c = $server->connect;
syswrite $c, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n";
like read_until($c, qr/\r\n\r\n/), qr/^HTTP\/1.1 100 /, '100 Continue: the app reads';
syswrite $c, '12345';
ok eventually(sub { in_state('reading', 'POST /upload') }), 'state reading while the body trickles in';
syswrite $c, '67890';
$res = read_response($c);
like $res && $res->{body}, qr/^\d+ 1234567890$/, 'the body reached the app';
close $c;

# writing a streamed response
$c = $server->send_get('/stream');
ok eventually(sub { in_state('writing', 'GET /stream') }), 'state writing while the app streams';
open $go, '>', "$dir/stream-go" or die;
close $go;
$res = read_response($c);
like $res && $res->{body}, qr/^\d+ done$/, 'the stream ended';
close $c;

# open connections: two idle keep-alive ones
my @keep = map { $server->connect } 1 .. 2;
for my $k (@keep) {
    syswrite $k, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";
    is read_response($k)->{status}, 200, 'a keep-alive request';
}
ok eventually(sub { my $n = 0; $n += $_->{connections} for slots(); $n == 2 && !grep { $_->{state} ne 'idle' } slots() }),
    'both idle keep-alive connections counted, the workers idle'
    or diag explain [slots()];
close $_ for @keep;

# the raw file, as a tool without Kamado reads it (the layout in Kamado::Scoreboard)
{
    open my $fh, '<:raw', $file or die;
    local $/;
    my $raw = <$fh>;
    my ($magic, $version, $nslots, $slot_size, $header_size) = unpack 'a8 L L L L', $raw;
    is_deeply [$magic, $version, $slot_size, $header_size], ['KAMADOSB', 3, 640, 1024], 'header';
    my @states = qw(free starting idle reading app writing draining);
    my (@raw, @xs);
    for my $i (0 .. $nslots - 1) {
        my ($pid, $gen, $state, $conns, $requests, $since, $request, $started, $pool, $private, $shared, $pss, @status)
            = unpack 'l L L L Q d Z96 d L x4 Q3 Q5', substr $raw, 1024 + 640 * $i, 640;
        push @raw, "$pid $gen $states[$state] $requests $request $private $shared $pss @status" if $state;
    }
    push @xs, "$_->{pid} $_->{generation} $_->{state} $_->{requests} $_->{request} $_->{private} $_->{shared} $_->{pss} "
        . "@{ $_->{counts}{status} }" for slots();
    is_deeply \@raw, \@xs, 'unpacked, the same slots as Kamado::Scoreboard reads (no request meanwhile)';
}

# each worker's memory, read by the generation from /proc (a second apart)
ok eventually(sub { !grep { !$_->{private} || !$_->{shared} || !$_->{pss} } slots() }),
    'each slot shows its worker\'s private, shared and proportional memory'
    or diag explain [slots()];
ok eventually(sub { my $n = 0; $n += $_->{counts}{status}[1] for slots(); $n >= 5 }),
    'and the 2xx responses it sent';

# a killed worker: its slot is cleared, and given to its replacement
my $victim = slot_of($busy->{pid});
kill KILL => $victim->{pid};
ok eventually(sub { !slot_of($victim->{pid}) }), 'the killed worker\'s slot is cleared';
my $replacement;
ok eventually(sub {
    my $s = ($board->slots)[ $victim->{slot} ];
    $replacement = $s if $s->{state} eq 'idle' && $s->{pid} != $victim->{pid};
    $replacement;
}), 'its replacement has the same slot';
is $replacement->{requests}, 0, 'which starts from 0 requests';
ok +(grep { $_ == $replacement->{pid} } $server->workers), 'a worker of the generation';
is scalar(slots()), 2, 'two slots in use';

# HUP: a new generation makes its own scoreboard, renamed over the file
# (the old one's workers finish in the old, unlinked one)
my $old_generation = $board->generation_pid;
kill HUP => $server->pid;
ok eventually(sub {
    my $new = Kamado::Scoreboard->attach($file) or return 0;
    $board = $new if $new->generation_pid != $old_generation;
    $board->generation_pid != $old_generation;
}), 'after HUP, the file holds a new scoreboard';
ok eventually(sub { my @s = slots(); @s == 2 && !grep { $_->{generation} != 2 || $_->{state} ne 'idle' } @s }),
    'after HUP, two idle workers of generation 2'
    or diag explain [slots()];

is $server->stop, 0, 'the server stops cleanly';
ok !slots(), 'every slot free at exit';
done_testing;
