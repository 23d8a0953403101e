# A stale unix socket file at the --listen path (its server gone, nothing
# listening) is replaced: the server starts and serves on a new socket.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use IO::Socket::UNIX;
use Kamado::Test qw(start_server read_response);

my $dir = File::Temp->newdir;
my $sock = "$dir/k.sock";
{
    my $old = IO::Socket::UNIX->new(Local => $sock, Listen => 1) or die $!;
    close $old;    # the file stays, with no listener
}
ok -S $sock && !IO::Socket::UNIX->new(Peer => $sock), 'a stale socket file';
my $app = "$dir/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }\n};
close $fh;
my $server = start_server(self_bind => 1, unix => $sock, app_file => $app, args => ['--listen', $sock]);
my $res = read_response($server->send_get('/'));
is $res && $res->{body}, 'ok', 'it serves';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
