# TERM while a client sends request after request on a keep-alive
# connection, each answered by the loop with the app called from C (the
# app runs no op that would dispatch a signal itself): the worker sees
# the signal between two requests, answers the request it took with
# Connection: close, and kamado exits 0 soon after, not when the client
# gives up. With --workers 0 (the server in the one process) and 1.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Handle;
use POSIX ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $app = 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }';

for my $workers (0, 1) {
    my $server = start_server(workers => $workers, app => $app);
    pipe my $from_client, my $to_parent or die "pipe: $!";
    my $client = fork // die "fork: $!";
    if ($client == 0) {
        # requests, two at a time so that the worker always has one
        # ready, until the connection ends or 30 s pass
        close $from_client;
        $to_parent->autoflush(1);
        my $c = $server->connect;
        my ($buf, $n, $last) = ('', 0);
        my $deadline = Time::HiRes::time() + 30;
        syswrite $c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
        while (Time::HiRes::time() < $deadline) {
            syswrite $c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
            my $res = read_response($c, buffer => \$buf) or last;
            $last = $res;
            print $to_parent "started\n" if ++$n == 200;
            last if ($res->{headers}{connection} // '') eq 'close';
        }
        my $ok = $last && $last->{status} == 200 && $last->{body} eq 'ok' ? 1 : 0;
        print $to_parent "served $n last ", ($last->{headers}{connection} // '-'), " ok $ok\n";
        POSIX::_exit(0);
    }
    close $to_parent;
    my $started = <$from_client>;
    is $started, "started\n", "workers $workers: 200 keep-alive requests served";
    my $t0 = Time::HiRes::time();
    kill TERM => $server->pid;
    my $status = $server->wait_exit(30);
    my $took = Time::HiRes::time() - $t0;
    is $status, 0, "workers $workers: kamado exits with status 0";
    cmp_ok $took, '<', 5, sprintf 'workers %d: soon after TERM (%.2f s), while the client still sends', $workers, $took;
    my $report = <$from_client> // '';
    like $report, qr/^served \d+ last close ok 1$/, "workers $workers: the last answer whole, with Connection: close"
        or diag $report;
    waitpid $client, 0;
}
done_testing;
