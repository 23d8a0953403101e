# A second kamado given the --pid-file a live kamado holds refuses to
# start: one line naming the file and the pid, a non-zero exit, before it
# binds anything; the file and the first server are left alone.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::CLI qw(run_kamado);
use Kamado::Test::Plackup qw(free_port);

my $dir = File::Temp->newdir;
my $file = "$dir/kamado.pid";
my $app = "$dir/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }\n};
close $fh;
my $server = start_server(app_file => $app, args => ['--pid-file', $file]);
my $pid = $server->pid;

my $port = free_port();
my $r = run_kamado({ timeout => 10 }, '--pid-file', $file, '--listen', "127.0.0.1:$port", '--workers', 1, $app);
ok !$r->{timed_out}, 'the second server exits at once';
isnt $r->{status}, 0, 'non-zero exit status';
is $r->{stderr}, "kamado: --pid-file $file: kamado is already running as pid $pid\n",
    'one line naming the file and the pid';
ok !IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port), 'it bound nothing';
open $fh, '<', $file or die $!;
is scalar <$fh>, "$pid\n", 'the file still holds the first pid';
is read_response($server->send_get('/'))->{body}, 'ok', 'the first server still serves';
is $server->stop, 0, 'the first server stops cleanly';
ok !-e $file, 'and removes the file';
done_testing;
