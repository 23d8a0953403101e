# TERM while a request is in the app: the request completes, then the
# server exits with status 0. Sequenced by a marker file, not by sleeping.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $dir = tempdir(CLEANUP => 1);
my $server = start_server(workers => 2, app => <<"APP");
sub {
    open my \$fh, '>', '$dir/started' or die; close \$fh;
    # the app waits for the test to say it has sent TERM
    my \$deadline = time + 20;
    select undef, undef, undef, 0.01 until -e '$dir/go' or time > \$deadline;
    [200, ['Content-Type' => 'text/plain'], ['finished']];
}
APP
my $c = $server->connect;
print $c "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
my $deadline = Time::HiRes::time() + 20;
Time::HiRes::sleep(0.01) until -e "$dir/started" or Time::HiRes::time() > $deadline;
ok -e "$dir/started", 'the request is in the app';
kill TERM => $server->pid;
# the master must not be gone while the request is still in flight
Time::HiRes::sleep(0.2);
ok kill(0, $server->pid), 'the master waits for the request in flight';
open my $go, '>', "$dir/go" or die;
close $go;
my $res = read_response($c);
is $res->{status}, 200, 'the request in flight completes';
is $res->{body}, 'finished', 'with its whole body';
is $res->{headers}{connection}, 'close', 'and Connection: close, since the server is stopping';
is $server->wait_exit, 0, 'the server then exits with status 0';
done_testing;
