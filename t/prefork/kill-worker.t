# A worker killed with KILL while it serves a request, under load: only
# that request fails (its connection closes without an answer), the other
# clients are served throughout, the generation logs it and starts a
# replacement.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(wait_for_file read_until_close);
use Kamado::Test::Load;

my $dir = tempdir(CLEANUP => 1);
local $ENV{KT_DIR} = $dir;
my $server = start_server(workers => 2, app => <<'APP');
my $dir = $ENV{KT_DIR};
sub {
    my $env = shift;
    if ($env->{PATH_INFO} eq '/slow') {
        open my $fh, '>', "$dir/busy" or die;
        print $fh $$;
        close $fh;
        sleep 1 for 1 .. 30;
    }
    [200, ['Content-Type' => 'text/plain'], [$$]];
}
APP

sub get {
    my $res = read_response($server->send_get('/fast'), timeout => 5);
    return $res && $res->{status} == 200 ? $res->{body} : undef;
}

my $slow = $server->connect;
syswrite $slow, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
ok wait_for_file("$dir/busy"), 'a request is in the app';
my $victim = do { open my $fh, '<', "$dir/busy" or die; local $/; <$fh> };
my $load = Kamado::Test::Load->start($server, clients => 2, path => '/fast');
my $keepalive = Kamado::Test::Load->start($server, clients => 1, keepalive => 1, path => '/fast');
kill KILL => $victim;
my ($got, $how) = read_until_close($slow, 5);
is $got, '', 'the killed request got no answer';
ok $how eq 'eof' || $how eq 'reset', "its connection was closed ($how)";

my (%served, $failed);
for (1 .. 20) {
    my $pid = get();
    defined $pid ? $served{$pid}++ : $failed++;
}
is $failed // 0, 0, 'every other request was served';
ok !$served{$victim}, 'none by the killed worker';
my $deadline = Time::HiRes::time() + 10;
my @workers;
until (Time::HiRes::time() > $deadline) {
    @workers = $server->workers;
    last if @workers == 2 && !grep { $_ == $victim } @workers;
    Time::HiRes::sleep(0.02);
}
ok @workers == 2 && !grep({ $_ == $victim } @workers), 'a replacement runs beside the survivor';
like $server->log, qr/worker \Q$victim\E exited with signal 9/, 'the generation logged the death';
ok $load->wait_for_requests(500) && $keepalive->wait_for_requests(500), 'the load went on';
$load->stop_ok("new connections", 500);
$keepalive->stop_ok("keep-alive", 500);
done_testing;
