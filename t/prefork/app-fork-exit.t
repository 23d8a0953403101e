# A process the app forks that exits as Perl programs do (exit: END
# blocks, global destruction) leaves the worker's connection alone: the
# three requests of one keep-alive connection, each forking such a child,
# all get their answers, the last one a large body.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 1, app => <<'APP');
END { print STDERR "END in $$\n" }
sub {
    my $env = shift;
    my $pid = fork // die "fork: $!";
    exit 0 if !$pid;    # everything an ordinary exit does
    waitpid $pid, 0;
    my $body = $env->{PATH_INFO} eq '/large' ? 'x' x 300_000 : "ok $pid";
    [200, ['Content-Type' => 'text/plain'], [$body]];
}
APP
my $c = $server->connect;
my $buffer = '';
for my $path ('/a', '/b', '/large') {
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, buffer => \$buffer);
    ok $res && $res->{status} == 200, "$path: answered on the same connection";
    is length($res->{body} // ''), 300_000, 'the whole large body' if $path eq '/large';
}
is $server->stop, 0, 'TERM: exit 0';
done_testing;
