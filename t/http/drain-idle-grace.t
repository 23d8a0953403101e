# A worker that stops (harakiri, or TERM to the supervisor) does not drop its
# idle keep-alive connections at once, which would race with a client
# about to send on one: each gets about a second more (DRAIN_IDLE in
# src/kd_conn.c, counted from when it went idle) in which a request is
# still answered, with Connection: close. Sequenced by events (the
# harakiri response; a file the worker's TERM handler writes); the close
# of the idle connection is awaited, and must not come sooner than half
# the grace after that connection's last request was sent.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response wait_for_file);

my $dir = tempdir(CLEANUP => 1);
$ENV{KT_DIR} = $dir;
my $app = <<'APP';
my $hooked;
sub {
    my $env = shift;
    # once per worker: note when the worker's own TERM handler has run
    if (!$hooked++) {
        my $orig = $SIG{TERM};
        $SIG{TERM} = sub { $orig->(@_) if ref $orig; open my $fh, '>', "$ENV{KT_DIR}/term-$$" or die };
    }
    $env->{'psgix.harakiri.commit'} = 1 if $env->{PATH_INFO} eq '/harakiri';
    [200, ['Content-Type' => 'text/plain'], ["$$"]];
}
APP

sub idle_connection {
    my ($server) = @_;
    my $c = $server->connect;
    my $sent = Time::HiRes::time();    # the server goes idle after this
    syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    return ($c, $res && $res->{body}, $sent);
}

for my $how_stop ('harakiri', 'TERM') {
    subtest $how_stop => sub {
        my $server = start_server(workers => 1, app => $app);
        my ($use, $pid) = idle_connection($server);
        my ($watch, $pid2, $idle_since) = idle_connection($server);
        is $pid2, $pid, 'two idle keep-alive connections on the one worker';

        if ($how_stop eq 'harakiri') {
            my $c = $server->connect;
            syswrite $c, "GET /harakiri HTTP/1.1\r\nHost: x\r\n\r\n";
            my ($got) = read_until_close($c);
            like $got, qr{\AHTTP/1\.1 200 OK\r\n}, 'the harakiri request is answered: the worker is stopping';
        } else {
            kill TERM => $server->pid;
            ok wait_for_file("$dir/term-$pid"), 'the worker got its TERM';
        }

        # a client sending on its idle connection now is answered, and told to go
        syswrite $use, "GET /late HTTP/1.1\r\nHost: x\r\n\r\n";
        my ($got, $how) = read_until_close($use);
        my $res = parse_response($got);
        is $res && $res->{status_line}, 'HTTP/1.1 200 OK', 'a request on an idle connection is still answered';
        is $res && $res->{headers}{connection}, 'close', 'with Connection: close';
        is $how, 'eof', 'then closed';

        # the other idle connection is closed, but not at once
        ($got, $how) = read_until_close($watch, 10);
        my $after = Time::HiRes::time() - $idle_since;
        is $got, '', 'an idle connection that never sends gets no response';
        is $how, 'eof', 'and is closed';
        cmp_ok $after, '>=', 0.5, sprintf 'after a grace period (closed %.3f s after its last request)', $after;
        is $how_stop eq 'TERM' ? $server->wait_exit : $server->stop, 0, 'the server exits with status 0';
    };
}
done_testing;
