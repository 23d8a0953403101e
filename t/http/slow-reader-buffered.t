# --write-buffer: a complete response the client does not take at once is
# handed to the worker's event loop, so readers that are slow, or stalled,
# do not hold the worker: with one worker, a normal client is served while
# three clients sit on unread 4 MiB answers. The bytes arrive intact and
# in order (keep-alive and pipelining go on after the loop has sent them),
# and a stalled reader is closed at --write-timeout.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Socket qw(SOL_SOCKET SO_RCVBUF);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close);

my $APP = <<'APP';
my $half = join '', map { sprintf "%07d\n", $_ } 0 .. 524287;    # 4 MiB
sub {
    my $env = shift;
    return [200, ['Content-Type' => 'text/plain'], [$half]] if $env->{PATH_INFO} eq '/half';
    [200, ['Content-Type' => 'text/plain'], ["small $env->{PATH_INFO}"]];
}
APP
my $HALF = join '', map { sprintf "%07d\n", $_ } 0 .. 524287;

sub slow_socket {
    socket(my $s, Socket::AF_INET(), Socket::SOCK_STREAM(), 0) or die "socket: $!";
    setsockopt($s, SOL_SOCKET, SO_RCVBUF, 4096) or die "SO_RCVBUF: $!";
    connect($s, Socket::pack_sockaddr_in(our($server)->port, Socket::inet_aton('127.0.0.1'))) or die "connect: $!";
    return $s;
}

our $server;
for my $case (['in memory', 8 << 20], ['in a temporary file', 65536]) {
    my ($where, $buffer) = @$case;
    local $server = start_server(args => ['--write-timeout', '4', '--write-buffer', $buffer], app => $APP);
    note "the unsent rest $where (--write-buffer $buffer)";
    subtest "stalled readers do not hold the worker ($where)" => sub {
        my @stalled = map { slow_socket() } 1 .. 3;
        my $t0 = Time::HiRes::time();
        syswrite $_, "GET /half HTTP/1.1\r\nHost: x\r\n\r\n" for @stalled;
        select undef, undef, undef, 0.2;    # let the worker take them
        my $c = $server->connect;
        syswrite $c, "GET /normal HTTP/1.1\r\nHost: x\r\n\r\n";
        my $res = read_response($c, timeout => 30);
        my $took = Time::HiRes::time() - $t0;
        is $res && $res->{body}, 'small /normal', 'a normal client is served';
        cmp_ok $took, '<', 3, sprintf 'before the stalled ones time out (%.2f s; --write-timeout 4)', $took;
        # not reading is the point: wait out --write-timeout (4 s) and the
        # once-a-second deadline sweep, then see what was left for them
        select undef, undef, undef, $t0 + 6.5 - Time::HiRes::time();
        for my $i (0 .. $#stalled) {
            my ($got, $how) = read_until_close($stalled[$i], 10);
            ok length($got) < length($HALF), sprintf 'stalled reader %d got %d bytes, not all', $i, length $got;
            ok $how eq 'eof' || $how eq 'reset', "and had been closed ($how)";
        }
    };

    subtest "a slow reader gets every byte, then the connection goes on ($where)" => sub {
        my $s = slow_socket();
        syswrite $s, "GET /half HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n";
        select undef, undef, undef, 0.3;    # the worker has moved on by now
        my $c = $server->connect;
        syswrite $c, "GET /meanwhile HTTP/1.1\r\nHost: x\r\n\r\n";
        my $mid = read_response($c, timeout => 30);
        is $mid && $mid->{body}, 'small /meanwhile', 'another request is served meanwhile';
        my $buf = '';
        my $first = read_response($s, buffer => \$buf, timeout => 30);
        ok $first && $first->{body} eq $HALF, 'the 4 MiB answer arrives whole and in order';
        my $second = read_response($s, buffer => \$buf, timeout => 30);
        is $second && $second->{body}, 'small /after', 'then the pipelined request behind it';
        syswrite $s, "GET /again HTTP/1.1\r\nHost: x\r\n\r\n";
        my $third = read_response($s, buffer => \$buf, timeout => 30);
        is $third && $third->{body}, 'small /again', 'and the connection is kept alive';
    };
}
done_testing;
