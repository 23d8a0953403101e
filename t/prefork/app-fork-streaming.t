# A streaming app that forks after it started its response: what the child
# writes and its close never reach the connection, and the child, back in
# the server, exits there. The client reads the parent's body alone, whole.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 1, app => <<'APP');
sub {
    my $env = shift;
    return sub {
        my $writer = shift->([200, ['Content-Type' => 'text/plain']]);
        $writer->write("parent-1\n");
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            $writer->write("child\n");
            $writer->close;
            return;    # back into the server
        }
        waitpid $pid, 0;
        $writer->write("parent-2\n");
        $writer->close;
    };
}
APP
my $c = $server->connect;
my $buffer = '';
for my $n (1, 2) {
    syswrite $c, "GET /$n HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, buffer => \$buffer);
    is $res && $res->{body}, "parent-1\nparent-2\n", "request $n: the parent's body alone";
}
is $buffer, '', 'nothing more on the connection';
is $server->stop, 0, 'TERM: exit 0';
is scalar(() = $server->workers), 0, 'no worker left';
done_testing;
