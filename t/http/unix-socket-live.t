# A second kamado asked to listen on the unix socket a live server listens
# on refuses to start (non-zero exit, one line naming the path) and leaves
# the socket alone: the first one still serves on it. When the path names
# another socket at exit (the file replaced), the first server leaves it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use IO::Socket::UNIX;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::CLI qw(run_kamado);

my $dir = File::Temp->newdir;
my $sock = "$dir/k.sock";
my $app = "$dir/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { [200, ["Content-Type" => "text/plain"], [\$\$]] }\n};
close $fh;
my $server = start_server(self_bind => 1, unix => $sock, app_file => $app, args => ['--listen', $sock]);
my $ino = (lstat $sock)[1];

my $r = run_kamado({ timeout => 10 }, '--listen', $sock, '--workers', 1, $app);
ok !$r->{timed_out}, 'the second server exits at once';
isnt $r->{status}, 0, 'non-zero exit status';
like $r->{stderr}, qr{\A(?:kamado: )?Can't listen on unix socket \Q$sock\E: another server is listening on it\n\z},
    'one line naming the path';
is +(lstat $sock)[1], $ino, 'the socket is the same file';
my $res = read_response($server->send_get('/'));
is $res && $res->{status}, 200, 'the first server still serves on it';

# the path taken over by another socket: not removed at exit
rename $sock, "$sock.old" or die $!;
my $other = IO::Socket::UNIX->new(Local => $sock, Listen => 1) or die $!;
is $server->stop, 0, 'the first server stops cleanly';
ok -S $sock, 'the socket now at the path is left alone';
done_testing;
