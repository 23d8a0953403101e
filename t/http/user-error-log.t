# --error-log and --access-log with --user nobody, started as root, in a
# directory only root may write (as it must be): the files are opened
# before the drop, so files only root may write get the log (the ready
# line, the app's STDERR) and the requests' lines. Moved away
# (logrotate) and USR1 sent, the keeper, which kept root, makes them
# anew, owned by nobody, and every process (supervisor, generation,
# workers), now nobody, reopens them and goes on in the new files.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::AccessLog qw(log_lines);

plan skip_all => 'needs root' if $>;
getpwnam('nobody') or plan skip_all => 'needs a user nobody';

my $dir = File::Temp->newdir;
chmod 0755, "$dir" or die $!;    # nobody may read the app, not write here
my $log = "$dir/error.log";
my $access = "$dir/access.log";
my $app = "$dir/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { print STDERR "app says \$<\\n"; [200, ["Content-Type" => "text/plain"], ["ok"]] }\n};
close $fh;
chmod 0644, $app or die $!;
for my $file ($log, $access) {
    open $fh, '>', $file or die $!;
    close $fh;
    chmod 0644, $file or die $!;    # root's: nobody could not open it
}

my $server = start_server(app_file => $app, no_wait => 1, workers => 2,
    args => ['--user', 'nobody', '--error-log', $log, '--access-log', $access]);
my $read = sub { open my $in, '<', $_[0] or return ''; local $/; scalar(<$in>) // '' };
ok eventually(sub { $read->($log) =~ /accepting connections/ }), 'the ready line is in the root-owned log';
my $res = read_response($server->send_get('/before'));
is $res && $res->{body}, 'ok', 'it serves';
my $uid = getpwnam('nobody');
ok eventually(sub { $read->($log) =~ /^app says $uid$/m }), 'the app, as nobody, writes to it';

rename $log, "$log.1" or die $!;
rename $access, "$access.1" or die $!;
kill USR1 => $server->pid;
ok eventually(sub { $read->($log) =~ /USR1: reopened \Q$log\E/ }), 'USR1: the supervisor reopens the error log';
for my $file ($log, $access) {
    my @st = stat $file;
    is $st[4], $uid, "$file is made anew, owned by nobody";
    is $st[2] & 07777, 0644, 'mode 0644';
}
my @procs = ($server->pid, $server->generations, $server->workers);
my @fd2 = grep { (readlink("/proc/$_/fd/2") // '') =~ m{/error\.log} } @procs;   # (not the keeper)
cmp_ok scalar(@fd2), '>=', 4, 'a supervisor, a generation, two workers';
ok eventually(sub { !grep { (readlink("/proc/$_/fd/2") // '') ne $log } @fd2 }), 'all of them reopened it';
unlike $read->("$log.1") . $read->($log), qr/can't reopen/, 'no process failed to';
$res = read_response($server->send_get("/after$_")) for 1 .. 10;
is $res && $res->{body}, 'ok', 'it still serves';
ok eventually(sub { (() = $read->($log) =~ /^app says $uid$/mg) == 10 }), 'and logs to the new file';
is $server->stop, 0, 'the server stops cleanly';
is scalar(grep { m{GET /after\d+ } } log_lines($access)), 10, 'the access lines too';
is scalar(grep { m{GET /after\d+ } } log_lines("$access.1")), 0, 'none in the old one';
done_testing;
