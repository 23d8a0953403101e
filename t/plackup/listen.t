# plackup -s Kamado --listen A --listen B --listen PATH: every address is
# served, a unix socket path included, and nothing else is bound (no
# :5000 beside them).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::IP;
use IO::Socket::UNIX;
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $dir = tempdir(CLEANUP => 1);
my @ports = (free_port(), free_port());
my $server = start_plackup(port => $ports[0],
    args => [(map { ('--listen', "127.0.0.1:$_") } @ports), '--listen', "$dir/app.sock"],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$_[0]{SERVER_PORT}"]] }');
my @conns = ((map { IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $_) or die "connect $_: $@" } @ports),
    IO::Socket::UNIX->new(Peer => "$dir/app.sock") // die "connect $dir/app.sock: $!");
my @want = (@ports, 0);
for my $i (0 .. $#conns) {
    my $c = $conns[$i];
    print $c "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{body}, $want[$i], "listener $i answers";
}
like $server->log, qr/accepting connections at \Q127.0.0.1:$ports[0], 127.0.0.1:$ports[1], $dir\/app.sock\E with/,
    'the three listeners, and no other';
unlike $server->log, qr/ignoring/, "none of plackup's own keys is taken for a misspelt option";
is $server->stop, 0, 'TERM stops plackup cleanly';
done_testing;
