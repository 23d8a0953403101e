# --listen on a unix socket with --socket-mode 0660 --user nobody --group
# nogroup, started as root: the socket has that mode, owner and group,
# and serves; at exit the server (by then nobody) removes it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);

plan skip_all => 'needs root' if $>;
my (undef, undef, $uid) = getpwnam('nobody') or plan skip_all => 'needs a user nobody';
my $gid = getgrnam('nogroup') // plan skip_all => 'needs a group nogroup';

my $dir = File::Temp->newdir;
chmod 0777, "$dir" or die $!;    # nobody removes the socket at exit
my $app = "$dir/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }\n};
close $fh;
chmod 0644, $app or die $!;
my $sock = "$dir/k.sock";
my $server = start_server(self_bind => 1, unix => $sock, app_file => $app,
    args => ['--listen', $sock, '--socket-mode', '0660', '--user', 'nobody', '--group', 'nogroup']);
my @st = lstat $sock;
ok -S _, 'a socket';
is sprintf('%04o', $st[2] & 07777), '0660', 'mode 0660';
is "$st[4]:$st[5]", "$uid:$gid", 'owned by nobody:nogroup';
my $res = read_response($server->send_get('/'));
is $res && $res->{body}, 'ok', 'it serves';
is $server->stop, 0, 'the server stops cleanly';
ok !-e $sock, 'the socket is removed at exit';
done_testing;
