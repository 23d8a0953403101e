# --status-listen's address: a port alone binds 127.0.0.1 (from
# /proc/net/tcp: listening on the loopback address, not every interface);
# a path is a unix socket; a bad address, or --workers 0, is refused with
# one line naming the option; plackup -s Kamado takes it too.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use IO::Socket::UNIX;
use JSON::PP ();
use Kamado::Test qw(start_server app_file eventually);
use Kamado::Test::CLI qw(run_kamado);
use Kamado::Test::HTTP qw(read_until_close parse_response);
use Kamado::Test::Plackup qw(free_port start_plackup);
use Kamado::Test::Status qw(status_get);

my $dir = File::Temp->newdir;
my $app = app_file('sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');

# (local address, state) of the TCP sockets on $port
sub tcp_listeners {
    my ($port) = @_;
    open my $fh, '<', '/proc/net/tcp' or return;
    my $hex = sprintf '%04X', $port;
    return map { (split ' ')[1] } grep { (split ' ')[1] =~ /:$hex$/ && (split ' ')[3] eq '0A' } <$fh>;
}

for my $spec ('PORT', ':PORT') {
    my $port = free_port();
    (my $arg = $spec) =~ s/PORT/$port/;
    my $server = start_server(app_file => $app, args => ['--status-listen', $arg]);
    $server->{status_port} = $port;
    ok eventually(sub { status_get($server, '/metrics')->{status} == 200 }), "--status-listen $spec answers";
    is_deeply [tcp_listeners($port)], [sprintf '0100007F:%04X', $port], "--status-listen $spec: on 127.0.0.1 only";
    is $server->stop, 0, 'stops cleanly';
}

{
    my $path = "$dir/status.sock";
    my $server = start_server(app_file => $app, args => ['--status-listen', $path]);
    my $res;
    ok eventually(sub {
        my $c = IO::Socket::UNIX->new(Peer => $path) or return 0;
        syswrite $c, "GET /status.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        $res = parse_response((read_until_close($c))[0]);
        $res && $res->{status} == 200;
    }), 'a unix socket path: /status.json answers there';
    is scalar @{ JSON::PP->new->decode($res->{body})->{workers} }, 1, 'one worker in it';
    ok -S $path, 'the socket exists while it runs';
    is $server->stop, 0, 'stops cleanly';
    ok !-e $path, 'and is removed at exit';
}

for my $case (
    [['--status-listen', 'nowhere:port'], qr/^kamado: --status-listen nowhere:port: Invalid --listen address/],
    [['--status-listen', '999999'], qr/^kamado: --status-listen 999999: the port must be from 1 to 65535$/],
    [['--workers', 0, '--status-listen', '9'], qr/^kamado: --status-listen needs --workers 1 or more/],
) {
    my ($args, $re) = @$case;
    my $r = run_kamado(@$args, $app);
    ok !$r->{timed_out} && $r->{status} != 0, "@$args: exits non-zero at once";
    like $r->{stderr}, qr/\A[^\n]*\n\z/, 'one line on stderr';
    like $r->{stderr}, $re, 'naming the option' or diag $r->{stderr};
}

{
    my ($port, $status_port) = (free_port(), free_port());
    my $server = start_plackup(port => $port, app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }',
        args => ['--port', $port, '-E', 'deployment', '--workers', 2, '--status-listen', "127.0.0.1:$status_port"]);
    $server->{status_port} = $status_port;
    my $s;
    ok eventually(sub {
        my $res = status_get($server, '/status.json');
        $s = $res->{status} == 200 && JSON::PP->new->decode($res->{content});
        # (a worker being started is shown before its pid is known)
        $s && @{ $s->{workers} } == 2 && !grep { !$_->{pid} } $s->{workers}->@*;
    }), 'plackup -s Kamado --status-listen: two workers shown';
    is_deeply [sort { $a <=> $b } map { $_->{pid} } $s->{workers}->@*], [sort { $a <=> $b } $server->workers],
        'the real ones';
    is $server->stop, 0, 'TERM stops plackup cleanly';
}
done_testing;
