# --min-workers 1 --max-workers 3 --max-worker-idle 1: three requests held
# in the app one after another make the generation add a worker each time all
# are busy, up to 3 and no further; all three are answered once released;
# idle again, the workers are retired down to 1, the one holding a
# keep-alive connection (opened before the third request) last, and that
# connection still works. TTIN and
# TTOU stay within the bounds. Steps wait for the scoreboard, log lines
# and the count of the generation's children, never a fixed time.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";

my $dir = File::Temp->newdir;
local $ENV{KT_GO} = "$dir/go";
my $server = start_server(
    args => ['--min-workers', 1, '--max-workers', 3, '--max-worker-idle', 1, '--scoreboard', "$dir/scoreboard"],
    app  => <<'APP');
sub {
    my $env = shift;
    if ($env->{PATH_INFO} eq '/block') {
        select undef, undef, undef, 0.01 until -e $ENV{KT_GO};
    }
    [200, ['Content-Type' => 'text/plain'], [$$]];
}
APP

my $board = Kamado::Scoreboard->attach("$dir/scoreboard") or BAIL_OUT("attach: $!");
sub states { map { $_->{state} } grep { $_->{state} ne 'free' } $board->slots }
sub count { my ($state) = @_; scalar grep { $_ eq $state } states() }
sub lines { my ($re) = @_; my @l = $server->log =~ /$re/mg; scalar @l }
sub workers { scalar $server->workers }

like $server->log, qr/with 1 to 3 workers/, 'kamado says the bounds';
ok eventually(sub { workers() == 1 && count('idle') == 1 }), 'one worker to begin with';

my (@held, $keep, $keeper);
for my $n (1 .. 3) {
    if ($n == 3) {
        # a keep-alive connection, to the one idle worker: with the most
        # connections once all are idle, it is retired last
        $keep = $server->connect;
        syswrite $keep, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";
        my $res = read_response($keep);
        is $res && $res->{status}, 200, 'a keep-alive request';
        $keeper = $res && $res->{body};
    }
    push @held, $server->send_get('/block');
    ok eventually(sub { count('app') == $n }), "request $n in the app";
    if ($n < 3) {
        ok eventually(sub { lines(qr/scaling up to \d+ workers: all \d+ busy$/m) == $n }), "a scaling line";
        like $server->log, qr/scaling up to ${\($n + 1)} workers: all $n busy$/m, "scaling up to " . ($n + 1);
        # the new worker is in its loop before the next request is sent
        ok eventually(sub { count('idle') == 1 && workers() == $n + 1 }), ($n + 1) . ' workers, one idle';
    }
}
is workers(), 3, 'three workers';
# every worker busy at the maximum: a few ticks later, still no fourth
my $ticks = time + 1;
eventually(sub { time > $ticks });
is lines(qr/scaling up/), 2, 'no scaling past --max-workers';
is workers(), 3, 'still three';

open my $go, '>', $ENV{KT_GO} or die;
close $go;
my %pids;
for my $c (@held) {
    my $res = read_response($c);
    is $res && $res->{status}, 200, 'a held request is answered';
    $pids{ $res->{body} }++ if $res;
}
is scalar(keys %pids), 3, 'by three different workers';

ok eventually(sub { lines(qr/retiring idle worker \d+/) == 2 }), 'two idle workers retired';
ok eventually(sub { workers() == 1 }), 'back to one worker';
is +($server->workers)[0], $keeper, 'the one holding the keep-alive connection';
like $server->log, qr/retiring idle worker \d+ \(idle \d+ s\): 1 worker$/m, 'the log says 1 worker';
syswrite $keep, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($keep);
is $res && $res->{status}, 200, 'the keep-alive connection still works';
is $res && $res->{body}, $keeper, 'on the same worker';
close $keep;
$res = read_response($server->send_get('/fast'));
is $res && $res->{status}, 200, 'a new request is served';

# TTIN/TTOU within the bounds
kill TTOU => $server->pid;
ok eventually(sub { $server->log =~ /TTIN\/TTOU: 1 worker$/m }), 'TTOU at --min-workers stays at 1';
kill TTIN => $server->pid;
ok eventually(sub { $server->log =~ /TTIN\/TTOU: 2 workers$/m }), 'TTIN: 2';
ok eventually(sub { workers() == 2 }), 'two workers';
ok eventually(sub { lines(qr/retiring idle worker \d+/) == 3 && workers() == 1 }),
    'idle, the added one is retired again';

unlike $server->log, qr/exited with/, 'no worker failed';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
