# An impatient TERM, sent again and again until the server is gone (as a
# service manager or an operator may do), still ends in exit status 0: the
# supervisor must not be killed by a TERM that arrives while it exits.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use POSIX ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

for my $round (1 .. 5) {
    my $server = start_server(workers => 2, app => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');
    my $c = $server->connect;
    syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    is read_response($c)->{status}, 200, "round $round: the server serves";
    my $deadline = Time::HiRes::time() + 10;
    my $status;
    while (Time::HiRes::time() < $deadline) {
        kill TERM => $server->pid;
        if (waitpid($server->pid, POSIX::WNOHANG()) > 0) { $status = $?; last }
        Time::HiRes::sleep(0.001);
    }
    $server->{status} = $status // do { kill KILL => $server->pid; waitpid $server->pid, 0; -1 };
    is $status, 0, "round $round: TERM after TERM, the server exits with status 0"
        or diag(($status // 0) & 127 ? 'killed by signal ' . ($status & 127) : 'status ' . ($status // 'none'));
}
done_testing;
