# --scoreboard PATH in a shared directory (mode 1777, as /tmp) where
# another user (nobody) has planted a file writable by all: the server
# starts and replaces it with a file of its own, neither world-writable
# nor the planter's, and never writes to the planted file (its content and
# mode are as they were, through a handle the test kept).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);

plan skip_all => 'needs root (to plant a file as nobody)' if $>;
my (undef, undef, $uid, $gid) = getpwnam('nobody') or plan skip_all => 'needs a user nobody';

my $dir = File::Temp->newdir;
chmod 01777, "$dir" or die $!;
my $file = "$dir/kamado.sb";
open my $planted, '+>', $file or die $!;
print $planted 'planted';
close $planted;
chown $uid, $gid, $file or die $!;
chmod 0666, $file or die $!;
open $planted, '<', $file or die $!;
my $planted_ino = (stat $planted)[1];

my $server = start_server(workers => 2, args => ['--scoreboard', $file],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');
my $res = read_response($server->send_get('/'));
is $res && $res->{status}, 200, 'the server serves';

my @st = lstat $file;
ok -f _, 'a plain file at the path';
isnt $st[1], $planted_ino, 'not the planted file';
isnt $st[4], $uid, 'not owned by nobody';
is sprintf('%o', $st[2] & 07777), '600', 'mode 0600: not world-writable';
my $board = Kamado::Scoreboard->attach($file);
ok $board && eventually(sub { (grep { $_->{state} eq 'idle' } $board->slots) == 2 }),
    'a scoreboard showing the two workers';

my @planted = stat $planted;
is sprintf('%o', $planted[2] & 07777), '666', 'the planted file\'s mode untouched';
is $planted[4], $uid, 'its owner too';
seek $planted, 0, 0;
is do { local $/; <$planted> }, 'planted', 'and its content';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
