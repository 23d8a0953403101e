# Started as root with --user nobody, kamado opens --error-log and
# --access-log before the drop. nobody, able to write the log directory
# (as the old --help asked), replaces a log with a symbolic link, or a
# hard link, to a file only root may write (a stand-in for
# /etc/cron.d/x), or with a file of another user: at the next start,
# kamado refuses it, naming the path, and the target is left as it was.
# A log file nobody owns, as USR1 leaves it, is taken, and so is a link
# root made in a directory only root writes (/dev/stdout).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);

plan skip_all => 'needs root' if $>;
my (undef, undef, $uid, $gid) = getpwnam('nobody') or plan skip_all => 'needs a user nobody';
my $daemon = getpwnam('daemon') // plan skip_all => 'needs a user daemon';

my $root = File::Temp->newdir;
chmod 0755, "$root" or die $!;
my $app = "$root/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { print STDERR "app says \$<\\n"; [200, ["Content-Type" => "text/plain"], ["ok"]] }\n};
close $fh;
chmod 0644, $app or die $!;
my $target = "$root/cron-x";    # root's, 0600: what a cron line in /etc/cron.d would be
my $read = sub { open my $in, '<', $_[0] or return ''; local $/; scalar(<$in>) // '' };

for my $case (
    [symlink => 'error', sub { symlink $target, $_[0] or die $! }, qr/it is a symbolic link; refused/],
    [symlink => 'access', sub { symlink $target, $_[0] or die $! }, qr/it is a symbolic link; refused/],
    ['hard link' => 'error', sub { link $target, $_[0] or die $! }, qr/it has 2 names \(a hard link\); refused/],
    ["daemon's file" => 'access', sub { _file($_[0], $daemon) }, qr/it belongs to daemon, not to root or the --user; refused/],
) {
    my ($what, $log, $plant, $why) = @$case;
    my $dir = File::Temp->newdir;
    chown $uid, $gid, "$dir" or die $!;    # nobody's: it can plant anything there
    chmod 0755, "$dir" or die $!;
    _file($target, 0, 0600, "# root's\n");
    my $path = "$dir/$log.log";
    $plant->($path);
    my $server = start_server(app_file => $app, no_wait => 1,
        args => ['--user', 'nobody', "--$log-log", $path]);
    my $status = $server->wait_exit(30);
    is $status, 2 << 8, "--$log-log, a $what: kamado does not start (exit 2)";
    like $server->log, qr/\Akamado: can't open --$log-log \Q$path\E: $why\n\z/, 'and says why in one line';
    is $read->($target), "# root's\n", 'the target is untouched';
    is((stat $target)[2] & 07777, 0600, 'and keeps its mode');
}

# a link root made in a directory only root writes (/dev/stdout): followed
my $server = start_server(app_file => $app, args => ['--user', 'nobody', '--access-log', '/dev/stdout']);
read_response($server->send_get('/to-stdout'));
ok eventually(sub { $server->log =~ m{"GET /to-stdout HTTP/1\.1" 200 } }), '--access-log /dev/stdout, root\'s link in /dev: followed';
is $server->stop, 0, 'the server stops cleanly';

# a file nobody owns (USR1 made it): taken
my $dir = File::Temp->newdir;
chmod 0755, "$dir" or die $!;
_file("$dir/error.log", $uid);
$server = start_server(app_file => $app, no_wait => 1, args => ['--user', 'nobody', '--error-log', "$dir/error.log"]);
ok eventually(sub { $read->("$dir/error.log") =~ /accepting connections/ }), "a log file of the --user's is taken";
my $res = read_response($server->send_get('/'));
ok eventually(sub { $read->("$dir/error.log") =~ /^app says $uid$/m }), 'and the app writes to it';
is $server->stop, 0, 'the server stops cleanly';
done_testing;

sub _file {
    my ($path, $owner, $mode, $text) = @_;
    unlink $path;
    open my $out, '>', $path or die "$path: $!";
    print $out $text // '';
    close $out;
    chown $owner, -1, $path or die $!;
    chmod $mode // 0644, $path or die $!;
}
