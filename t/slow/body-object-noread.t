# A body object (getline, not a real file: an IO::Handle-like object) to a
# client that never reads costs a descriptor, not a worker: the worker
# reads it ahead (here 4 MB, into a temporary file past --write-buffer) and
# hands it to its event loop. One worker, and a normal client is served
# meanwhile (a worker writing the body itself would be held for
# --write-timeout, 30 s). Latency is asserted loosely (p99 < 1 s).
use strict;
use warnings;
use lib 't/lib', 'bench/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Bench::SlowClient ();

plan skip_all => 'needs /proc/net/tcp' unless -r '/proc/net/tcp';

my $server = start_server(workers => 1, app => <<'APP');
package Blocks {
    sub new { bless { left => 64 }, shift }
    sub getline { $_[0]{left}-- > 0 ? 'x' x 65536 : undef }
    sub close { }
}
sub {
    my $env = shift;
    return [200, ['Content-Type' => 'text/plain', 'Content-Length' => 2], ['ok']] if $env->{PATH_INFO} ne '/object';
    [200, ['Content-Type' => 'application/octet-stream'], Blocks->new];
}
APP

my $res = Kamado::Bench::SlowClient::run(
    mode => 'read', path => '/object', port => $server->port, conns => 1, rcvbuf => 4096,
    once => 1, duration => 8,
    probe => { count => 20, rate => 10, timeout => 5 },
);
my ($attack, $probe) = @$res{qw(attack probe)};
is $attack->{connected}, 1, 'a client that never reads the body';
is $attack->{server_closes}, 0, 'still held open (the write timeout is 30 s)';
is $probe->{ok}, 20, 'a normal client is served meanwhile' or diag explain $probe->{error_kinds};
cmp_ok $probe->{p99} // 99_999, '<', 1000, 'p99 ' . ($probe->{p99} // '-') . ' ms';
done_testing;
