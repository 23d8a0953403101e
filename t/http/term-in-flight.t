# TERM (or QUIT) to the supervisor while a request is in the app: the request completes
# with its whole 200 response (marked Connection: close), then the server
# exits with status 0. Sequenced by events only: the app says it started
# (a file), the test sends TERM, the app sees the worker's TERM (it wraps
# the worker's handler) and only then finishes.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(wait_for_file read_until_close parse_response);

my $app = <<'APP';
use Time::HiRes ();
my $dir = $ENV{KT_DIR};
sub {
    my $env = shift;
    return [200, ['Content-Type' => 'text/plain'], ['quick']] if $env->{PATH_INFO} eq '/quick';
    my $term = 0;
    my $worker_handler = $SIG{TERM};
    local $SIG{TERM} = sub { $term = 1; $worker_handler->(@_) if ref $worker_handler };
    open my $fh, '>', "$dir/started" or die;
    close $fh;
    my $deadline = Time::HiRes::time() + 10;
    Time::HiRes::sleep(0.01) until $term or Time::HiRes::time() > $deadline;
    [200, ['Content-Type' => 'text/plain'], [$term ? 'finished after TERM' : 'finished, never saw TERM']];
}
APP

for my $signal (qw(TERM QUIT)) {
    my $dir = tempdir(CLEANUP => 1);
    $ENV{KT_DIR} = $dir;
    my $server = start_server(workers => 2, app => $app);

    # an idle keep-alive connection: it must not hold the shutdown up for long
    my $idle = $server->connect;
    syswrite $idle, "GET /quick HTTP/1.1\r\nHost: x\r\n\r\n";
    like Kamado::Test::read_response($idle)->{body}, qr/quick/, "$signal: an idle keep-alive connection exists";

    my $c = $server->connect;
    syswrite $c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
    ok wait_for_file("$dir/started"), "$signal: the request is in the app";
    kill $signal => $server->pid;
    my ($got, $how) = read_until_close($c, 15);
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 200 OK', "$signal: the request in flight completes with 200";
    is $res->{body}, 'finished after TERM', "$signal: its whole body, and the app saw the worker's TERM while running";
    is $res->{headers}{connection}, 'close', "$signal: with Connection: close, the server is stopping";
    is $how, 'eof', "$signal: then the connection closes";
    is $server->wait_exit(15), 0, "$signal: the server exits with status 0";
    unlike $server->log, qr{exited with|worker failed}, "$signal: no worker failed";
}
done_testing;
