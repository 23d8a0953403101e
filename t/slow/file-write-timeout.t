# A client that stops reading a file body is closed at --write-timeout,
# and what the event loop held for it (the connection and its own
# descriptor on the file) is freed; meanwhile the worker, having handed the
# file over, serves others. One worker, --write-timeout 2, a 50 MB sparse
# file and a client that never reads it. Its close is taken from
# /proc/net/tcp (a client that does not read never sees the server's FIN),
# the worker's descriptors from /proc/PID/fd.
use strict;
use warnings;
use lib 't/lib', 'bench/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Bench::SlowClient ();

plan skip_all => 'needs /proc' unless -r '/proc/net/tcp' && -d "/proc/$$/fd";

my $TIMEOUT = 2;
my $file = File::Temp->new;
truncate $file, 50 * 1024 * 1024 or die "truncate: $!";    # sparse: no disk used
close $file;
local $ENV{KT_FILE} = $file->filename;
my $server = start_server(workers => 1, args => ['--write-timeout', $TIMEOUT], app => <<'APP');
sub {
    my $env = shift;
    return [200, ['Content-Type' => 'text/plain', 'Content-Length' => 2], ['ok']] if $env->{PATH_INFO} ne '/file';
    open my $fh, '<:raw', $ENV{KT_FILE} or die "$ENV{KT_FILE}: $!";
    [200, ['Content-Type' => 'application/octet-stream'], $fh];
}
APP
my ($worker) = $server->workers;

# the worker's descriptors: [open on the file, sockets]
sub fds {
    my ($files, $sockets) = (0, 0);
    for my $fd (glob "/proc/$worker/fd/*") {
        my $to = readlink $fd // next;
        $files++ if $to eq $ENV{KT_FILE};
        $sockets++ if $to =~ /^socket:/;
    }
    return [$files, $sockets];
}
my $before = fds();
is $before->[0], 0, 'the worker holds no descriptor on the file at first';

my $res = Kamado::Bench::SlowClient::run(
    mode => 'read', path => '/file', port => $server->port, conns => 1, rcvbuf => 4096,
    once => 1, duration => 10,
    probe => { count => 10, rate => 10, timeout => 5 },
);
my ($attack, $probe) = @$res{qw(attack probe)};
is $probe->{ok}, 10, 'the one worker serves a normal client while the file waits for its reader'
    or diag explain $probe->{error_kinds};
cmp_ok $probe->{p99} // 99_999, '<', 1000, 'p99 ' . ($probe->{p99} // '-') . ' ms';
is $attack->{server_closes}, 1, 'the server closed the stalled connection' or diag explain $attack;
my $age = $attack->{closes}[0]{age} // 0;
cmp_ok $age, '>=', $TIMEOUT - 0.1, sprintf 'not before the write timeout (%.2f s)', $age;
cmp_ok $age, '<=', $TIMEOUT + 2, 'nor more than 2 s after it';
ok eventually(sub { my $now = fds(); $now->[0] == 0 && $now->[1] == $before->[1] }, 30),
    'the worker holds no descriptor on the file, and no more sockets than before' or diag explain fds();
done_testing;
