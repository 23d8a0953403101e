# --scoreboard PATH in a shared directory (mode 1777, as /tmp) where
# another user (nobody) has planted a symbolic link to a file the server's
# user owns: the server starts, replaces the link with a file of its own,
# and the link's target is neither written nor changed in mode or owner.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);

plan skip_all => 'needs root (to plant a link as nobody)' if $>;
my (undef, undef, $uid, $gid) = getpwnam('nobody') or plan skip_all => 'needs a user nobody';

my $dir = File::Temp->newdir;
chmod 01777, "$dir" or die $!;
my $target = "$dir/precious";
open my $fh, '>', $target or die $!;
print $fh 'keep me';
close $fh;
chmod 0640, $target or die $!;
my $file = "$dir/kamado.sb";
symlink $target, $file or die $!;
# lchown: the link is nobody's, as if nobody made it
system('chown', '-h', "$uid:$gid", $file) == 0 or die "chown -h failed";

my $server = start_server(workers => 1, args => ['--scoreboard', $file],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');
my $res = read_response($server->send_get('/'));
is $res && $res->{status}, 200, 'the server serves';

ok !-l $file, 'the link is gone';
ok -f $file && (lstat $file)[4] == $>, 'a plain file of the server\'s user in its place';
ok eventually(sub { my $b = Kamado::Scoreboard->attach($file); $b && grep { $_->{state} eq 'idle' } $b->slots }),
    'a scoreboard showing the worker';
open $fh, '<', $target or die $!;
is do { local $/; <$fh> }, 'keep me', 'the target\'s content untouched';
is sprintf('%o', (stat $target)[2] & 07777), '640', 'its mode too';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
