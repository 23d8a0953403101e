# --error-log with --user nobody, started as root: the log file is opened
# before the drop, so a file only root may write gets the log (the ready
# line, the app's STDERR); moved away (logrotate) and USR1 sent, the
# server, now nobody, cannot open a new one there: it says so clearly in
# the old file, keeps logging to it, and keeps serving.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);

plan skip_all => 'needs root' if $>;
getpwnam('nobody') or plan skip_all => 'needs a user nobody';

my $dir = File::Temp->newdir;
chmod 0755, "$dir" or die $!;    # nobody may read the app, not write here
my $log = "$dir/error.log";
my $app = "$dir/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { print STDERR "app says \$<\\n"; [200, ["Content-Type" => "text/plain"], ["ok"]] }\n};
close $fh;
chmod 0644, $app or die $!;
open $fh, '>', $log or die $!;
close $fh;
chmod 0644, $log or die $!;    # root's: nobody could not open it

my $server = start_server(app_file => $app, no_wait => 1, args => ['--user', 'nobody', '--error-log', $log]);
my $read = sub { open my $in, '<', $_[0] or return ''; local $/; scalar(<$in>) // '' };
ok eventually(sub { $read->($log) =~ /accepting connections/ }), 'the ready line is in the root-owned log';
my $res = read_response($server->send_get('/'));
is $res && $res->{body}, 'ok', 'it serves';
my $uid = getpwnam('nobody');
ok eventually(sub { $read->($log) =~ /^app says $uid$/m }), 'the app, as nobody, writes to it';

rename $log, "$log.1" or die $!;
kill USR1 => $server->pid;
ok eventually(sub { $read->("$log.1") =~ /USR1: can't reopen \Q$log\E: Permission denied; still logging to the old file/ }),
    'USR1: the old file says the new one cannot be opened, and why';
ok !-e $log, 'no new file';
$res = read_response($server->send_get('/'));
is $res && $res->{body}, 'ok', 'it still serves';
ok eventually(sub { (() = $read->("$log.1") =~ /^app says $uid$/mg) == 2 }), 'and logs to the old file';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
