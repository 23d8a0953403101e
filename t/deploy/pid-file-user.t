# --pid-file with --user nobody, started as root. Root signals the pid it
# reads there (logrotate's postrotate), so:
#   - a directory nobody can write (its own, or group- or world-writable)
#     is refused at start, with one line naming it, and no file is left;
#   - in a directory only root writes, the file is written as root and,
#     at exit, removed by the keeper that kept root (nobody cannot), with
#     no warning; after a KILL of the supervisor too.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);

plan skip_all => 'needs root' if $>;
my (undef, undef, $uid, $gid) = getpwnam('nobody') or plan skip_all => 'needs a user nobody';
my $app = File::Temp->new(SUFFIX => '.psgi');
print $app "sub { [200, ['Content-Type' => 'text/plain'], ['ok']] }\n";
close $app;
chmod 0644, "$app" or die $!;

for my $case (["nobody's", $uid, 0755], ['world-writable, sticky', 0, 01777], ['group-writable, its group', 0, 0775, $gid]) {
    my ($what, $owner, $mode, $group) = @$case;
    my $dir = File::Temp->newdir;
    chown $owner, $group // 0, "$dir" or die $!;
    chmod $mode, "$dir" or die $!;
    my $server = start_server(app_file => "$app", no_wait => 1, args => ['--user', 'nobody', '--pid-file', "$dir/kamado.pid"]);
    is $server->wait_exit(30), 2 << 8, "a $what directory: kamado does not start (exit 2)";
    like $server->log, qr{\Akamado: --pid-file \Q$dir\E/kamado\.pid: --user nobody can write \Q$dir\E, and so put any pid there for root to signal; give it a directory only root writes \(such as /run\)\n\z},
        'and says why in one line';
    ok !-e "$dir/kamado.pid", 'no file is left';
}

my $dir = File::Temp->newdir;
chmod 0755, "$dir" or die $!;
my $file = "$dir/kamado.pid";
sub slurp { open my $fh, '<', $_[0] or return undef; local $/; <$fh> }
my $server = start_server(app_file => "$app", args => ['--user', 'nobody', '--pid-file', $file]);
is slurp($file), $server->pid . "\n", 'a root-owned directory: the file holds the supervisor pid';
is +(stat $file)[4], 0, 'written by root';
is $server->stop, 0, 'TERM: exit 0';
ok !-e $file, 'the file is removed at exit, in a directory nobody cannot write';
unlike $server->log, qr/can't remove/, 'without a warning';

$server = start_server(app_file => "$app", args => ['--user', 'nobody', '--pid-file', $file]);
is slurp($file), $server->pid . "\n", 'again';
kill KILL => $server->pid;
$server->wait_exit;
ok eventually(sub { !-e $file }), 'the supervisor killed: the keeper removes the file';
done_testing;
