# An app that forks and returns in both processes: the child's return
# never reaches the connection (the client reads exactly one response) and
# the child does not live on as a worker nobody tracks: after TERM no
# process holds the listening socket and the child is gone.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server eventually);
use Kamado::Test::HTTP qw(read_until_close wait_for_file slurp);

my $dir = tempdir(CLEANUP => 1);
local $ENV{KT_DIR} = $dir;
my $server = start_server(workers => 1, app => <<'APP');
my $dir = $ENV{KT_DIR};
sub {
    my $pid = fork // die "fork: $!";
    if ($pid) {
        open my $fh, '>', "$dir/child" or die;
        print $fh $pid;
        close $fh;
    }
    [200, ['Content-Type' => 'text/plain', 'Content-Length' => 6], [$pid ? 'parent' : 'child!']];
}
APP
my $inode = (stat $server->{listen})[1];
close $server->{listen};    # only the server holds the port now

my $c = $server->connect;
syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my ($got) = read_until_close($c, 10);
my @heads = $got =~ m{HTTP/1\.1 \d{3} }g;
is scalar @heads, 2, 'two requests, two responses' or diag $got;
unlike $got, qr/child!/, 'none from the child';
ok wait_for_file("$dir/child"), 'the app forked';
my $child = slurp("$dir/child");

is $server->stop, 0, 'TERM: exit 0';
ok eventually(sub { !-e "/proc/$child" || (slurp("/proc/$child/stat") // '') =~ /^\d+ \(.*\) Z/s }, 30),
    'the child is gone';
ok !IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $server->port), 'nothing accepts on the port';
my @holders = map { m{^/proc/(\d+)/} } grep { (readlink($_) // '') eq "socket:[$inode]" } glob '/proc/[0-9]*/fd/*';
is "@holders", '', 'no process holds the listening socket';
kill KILL => @holders;    # (a failure leaves none behind)
unlike $server->log, qr/child!/, 'nothing logged about it';
done_testing;
