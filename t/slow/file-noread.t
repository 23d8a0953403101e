# A file body (a PSGI app returning a filehandle, as Plack::App::File and
# the CGI runner's static files do) to clients that never read costs a
# descriptor, not a worker: the worker hands the file to its event loop,
# which sends it as the client reads, and goes on. Here two such clients
# of a 50 MB file on a two-worker server (more than enough to hold both
# workers for --write-timeout, 30 s, if they wrote it themselves), and a
# normal client is served meanwhile (the clients come half a second apart,
# so that each finds a worker free). Latency is asserted loosely (p99 <
# 1 s); bench/slow-attacks measures it.
use strict;
use warnings;
use lib 't/lib', 'bench/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Bench::SlowClient ();

plan skip_all => 'needs /proc/net/tcp' unless -r '/proc/net/tcp';

my $file = File::Temp->new;
truncate $file, 50 * 1024 * 1024 or die "truncate: $!";    # sparse: no disk used
close $file;
local $ENV{KT_FILE} = $file->filename;
my $server = start_server(workers => 2, app => <<'APP');
sub {
    my $env = shift;
    return [200, ['Content-Type' => 'text/plain', 'Content-Length' => 2], ['ok']] if $env->{PATH_INFO} ne '/file';
    open my $fh, '<:raw', $ENV{KT_FILE} or die "$ENV{KT_FILE}: $!";
    [200, ['Content-Type' => 'application/octet-stream'], $fh];
}
APP

my $res = Kamado::Bench::SlowClient::run(
    mode => 'read', path => '/file', port => $server->port, conns => 2, rcvbuf => 4096,
    once => 1, duration => 10, stagger => 0.5,
    probe => { count => 25, rate => 10, timeout => 5 },
);
my ($attack, $probe) = @$res{qw(attack probe)};
is $attack->{connected}, 2, 'two clients that never read the file';
is $attack->{server_closes}, 0, 'still held open (the write timeout is 30 s)';
is $probe->{ok}, 25, 'a normal client is served meanwhile' or diag explain $probe->{error_kinds};
cmp_ok $probe->{p99} // 99_999, '<', 1000, 'p99 ' . ($probe->{p99} // '-') . ' ms';
done_testing;
