# Sockets inherited from start_server (Server::Starter) are used instead of
# binding, and a HUP to start_server replaces Kamado without refusing a
# connection.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::UNIX;
use POSIX ();
use Time::HiRes ();
use Kamado::Test qw(app_file read_response);
use Kamado::Test::Load;

my $start_server = `sh -c 'command -v start_server'`;
chomp $start_server;
plan skip_all => 'start_server (libserver-starter-perl) is not installed' unless $start_server;

my $dir  = tempdir(CLEANUP => 1);
my $sock = "$dir/app.sock";
my $app  = app_file('sub { [200, ["Content-Type" => "text/plain"], ["pid $$"]] }');

my $pid = fork // die;
if (!$pid) {
    open STDERR, '>', "$dir/log" or die;
    open STDOUT, '>&', \*STDERR or die;
    { exec $start_server, "--path=$sock", "--status-file=$dir/status", '--interval=0', '--',
        $^X, "-Mblib", "script/kamado", "--workers", 1, $app };
    POSIX::_exit(111);
}

sub get {
    my $c = IO::Socket::UNIX->new(Peer => $sock) or return undef;
    print $c "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    my $res = read_response($c);
    return $res && $res->{status} == 200 ? $res->{body} : undef;
}

sub wait_for(&$) {
    my ($cond, $what) = @_;
    my $deadline = Time::HiRes::time() + 20;
    until ($cond->()) {
        die "timed out waiting for $what\n" . `cat $dir/log` if Time::HiRes::time() > $deadline;
        Time::HiRes::sleep(0.05);
    }
}

wait_for { -S $sock && defined get() } 'the first generation';
my $first = get();
like $first, qr/^pid \d+\z/, 'served through the socket start_server bound';
unlike `cat $dir/log`, qr/Can't listen/, 'kamado did not bind a socket of its own';

my $connect = sub { IO::Socket::UNIX->new(Peer => $sock) };
my $load = Kamado::Test::Load->start($connect, clients => 2);
my $keepalive = Kamado::Test::Load->start($connect, clients => 1, keepalive => 1);
my $generation = sub { open my $fh, '<', "$dir/status" or return ''; local $/; <$fh> // '' };
my $before = $generation->();
kill HUP => $pid;
my ($served, $failed) = (0, 0);
wait_for {
    my $body = get();
    defined $body ? $served++ : $failed++;
    $generation->() ne $before && defined $body && $body ne $first;
} 'the second generation';
is $failed, 0, "no request failed during the restart ($served served)";
my ($old_kamado) = $before =~ /^\d+:(\d+)$/m;
like $old_kamado, qr/^\d+\z/, 'the status file named the first kamado';
wait_for { !kill 0, $old_kamado } 'the first kamado to exit';
ok $load->wait_for_requests(1000) && $keepalive->wait_for_requests(1000), 'the load went on';
$load->stop_ok("new connections during the restart", 1000);
$keepalive->stop_ok("keep-alive during the restart", 1000);

kill TERM => $pid;
waitpid $pid, 0;
is $? >> 8, 0, 'start_server exited cleanly';
done_testing;
