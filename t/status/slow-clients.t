# The status process has a connection budget of its own: 300 connections
# to --status-listen that send half a head and then nothing (more than
# the 256 it holds) do not keep a client that sends its request at once
# from being answered, at once; the slow ones are closed, oldest first.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Time::HiRes ();
use Kamado::Test::Status qw(status_server status_get);

my $server = status_server(workers => 1, app => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');
my @slow;
for my $i (1 .. 300) {
    my $c = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $server->{status_port}, Timeout => 10)
        or last;
    syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\n";
    push @slow, $c;
}
is scalar(@slow), 300, '300 slow connections open';
for my $path ('/status.json', '/', '/metrics') {
    my $t0 = Time::HiRes::time();
    my $res = status_get($server, $path);
    my $took = Time::HiRes::time() - $t0;
    is $res->{status}, 200, "GET $path: 200 with 300 slow clients" or diag $res->{content};
    cmp_ok $took, '<', 5, "GET $path: at once, not after the slow clients' header timeout (took ${\ sprintf '%.2f', $took} s)";
}
my $closed = grep { my $n = sysread $_, my $buf, 1; defined $n && $n == 0 } grep { _readable($_) } @slow;
cmp_ok $closed, '>', 0, "slow connections closed to make room ($closed)";
close $_ for @slow;
is $server->stop, 0, 'the server stops cleanly';
done_testing;

sub _readable {
    my ($fh) = @_;
    vec(my $r = '', fileno $fh, 1) = 1;
    return select($r, undef, undef, 0) > 0;
}
