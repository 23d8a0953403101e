# Started as root with --user nobody --group nogroup: the app and a CGI
# script (--cgi-bin) see nobody's uid and nogroup's gid as real and
# effective ids, with no other group, and the log has no root warning;
# the server stops cleanly. The listener is inherited (LISTEN_FDS), as
# from systemd, and keeps working after the drop.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);

plan skip_all => 'needs root' if $>;
my (undef, undef, $uid) = getpwnam('nobody') or plan skip_all => 'needs a user nobody';
my $gid = getgrnam('nogroup') // plan skip_all => 'needs a group nogroup';

# files nobody can read: the app, and a CGI directory
my $dir = File::Temp->newdir;
chmod 0755, "$dir" or die $!;
mkdir "$dir/cgi" or die $!;
my $ids = q{"$< $> [$(] [$)]"};
open my $fh, '>', "$dir/app.psgi" or die $!;
print $fh qq{sub { [200, ["Content-Type" => "text/plain"], [$ids]] }\n};
close $fh;
open $fh, '>', "$dir/cgi/ids.cgi" or die $!;
print $fh qq{#!/usr/bin/perl\nprint "Content-Type: text/plain\\r\\n\\r\\n", $ids;\n};
close $fh;
chmod 0644, "$dir/app.psgi" or die $!;
chmod 0755, "$dir/cgi", "$dir/cgi/ids.cgi" or die $!;

my $server = start_server(app_file => "$dir/app.psgi", workers => 2,
    args => ['--user', 'nobody', '--group', 'nogroup', '--cgi-bin', "$dir/cgi"]);
my $want = "$uid $uid [$gid $gid] [$gid $gid]";
my $res = read_response($server->send_get('/'));
is $res && $res->{body}, $want, 'the app: uid, euid, gid and groups, egid and groups';
$res = read_response($server->send_get('/cgi-bin/ids.cgi'));
is $res && $res->{body}, $want, 'a CGI script: the same';
my @procs = ($server->pid, $server->generations, $server->workers);
my @uids = map { open my $s, '<', "/proc/$_/status" or die $!; local $/; (<$s> =~ /^Uid:\s+(.*)$/m)[0] } @procs;
is_deeply \@uids, [("$uid\t$uid\t$uid\t$uid") x @procs], 'every process: real, effective, saved and fs uid';
unlike $server->log, qr/running as root/, 'no root warning';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
