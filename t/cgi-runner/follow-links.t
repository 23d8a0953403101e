# A symbolic link in a CGI directory that leads out of it is refused (403)
# with one warning naming the link and its target; --cgi-follow-links DIR
# lets links lead into DIR. Debian's backuppc layout: its CGI directory
# /usr/share/backuppc/cgi-bin holds index.cgi ->
# ../../../lib/backuppc/cgi-bin/index.cgi. A link elsewhere is still 403,
# and a script reached so is refused when anyone may write it or a
# directory from DIR down to it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request read_response eventually);
use Kamado::Test::Plackup qw(start_plackup free_port);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);
use Kamado::Test::CLI qw(run_kamado);
Kamado::Test::allow_errors(qr/is writable by anyone/);

my $base = File::Temp::tempdir(CLEANUP => 1);
chmod 0755, $base or die;
for my $dir (qw(usr usr/share usr/share/backuppc usr/share/backuppc/cgi-bin usr/lib usr/lib/backuppc
    usr/lib/backuppc/cgi-bin elsewhere))
{
    mkdir "$base/$dir" or die "$dir: $!";
    chmod 0755, "$base/$dir" or die;
}
my ($cgi, $lib) = ("$base/usr/share/backuppc/cgi-bin", "$base/usr/lib/backuppc/cgi-bin");
put_script(
    $lib, 'index.cgi',
    "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\nBackupPC at \$ENV{SCRIPT_NAME}\\n};\n"
);
symlink '../../../lib/backuppc/cgi-bin/index.cgi', "$cgi/index.cgi" or die $!;
put_script("$base/elsewhere", 'other.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\nother\\n};\n");
symlink '../../../../elsewhere/other.cgi', "$cgi/other.cgi" or die $!;

my $server = start_server(no_app => 1, args => ['--cgi-bin', "/backuppc=$cgi"]);
my $get = sub {
    my $raw = raw_request($server, "GET $_[0] HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, body => '' };
};
is $get->('/backuppc/index.cgi')->{status}, 403, 'without --cgi-follow-links: a link out of the CGI directory is 403';
ok eventually(sub {
    $server->log =~
        m{\[warn\].*\Q$cgi\E/index\.cgi: a symbolic link to \Q$lib\E/index\.cgi, outside \Q$cgi\E: not followed};
    }),
    'one warning names the link and its target';
unlike $server->log, qr/\[error\].*symbolic link/, '... a warning, not an error';
is $server->stop, 0, 'stopped';

$server = start_server(no_app => 1, args => ['--cgi-bin', "/backuppc=$cgi", '--cgi-follow-links', $lib]);
my $r = $get->('/backuppc/index.cgi');
is $r->{status}, 200, '--cgi-follow-links DIR: the link into DIR is followed';
is $r->{body}, "BackupPC at /backuppc/index.cgi\n", '... and the script runs, named by its link';
is $get->('/backuppc/')->{body}, "BackupPC at /backuppc/index.cgi\n", '... as the directory\'s index too';
is $get->('/backuppc/other.cgi')->{status}, 403, 'a link to a directory not named: still 403';
chmod 0777, $lib or die;
is $get->('/backuppc/index.cgi')->{status}, 500, 'the named directory writable by anyone: refused';
ok eventually(sub { $server->log =~ m{\Q$cgi\E/index\.cgi: not run: \Q$lib\E is writable by anyone} }), '... logged';
chmod 0755, $lib or die;
chmod 0777, "$base/usr/lib/backuppc" or die;
is $get->('/backuppc/index.cgi')->{status}, 200,
    'a directory above the named one writable by anyone: not the named tree\'s';
chmod 0755, "$base/usr/lib/backuppc" or die;
chmod 0757, "$lib/index.cgi" or die;
is $get->('/backuppc/index.cgi')->{status}, 500, 'the script itself writable by anyone: refused';
chmod 0755, "$lib/index.cgi" or die;
is $get->('/backuppc/index.cgi')->{status}, 200, 'made safe again: it runs';
is $server->stop, 0, 'stopped';

# a directory under the named one, on the way to the script
mkdir "$lib/deep" or die;
chmod 0755, "$lib/deep" or die;
put_script("$lib/deep", 'x.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\ndeep\\n};\n");
symlink "$lib/deep/x.cgi", "$cgi/deep.cgi" or die $!;
$server = start_server(no_app => 1, args => ['--cgi-bin', "/backuppc=$cgi", '--cgi-follow-links', $lib]);
is $get->('/backuppc/deep.cgi')->{body}, "deep\n", 'a script deeper in the named directory runs';
chmod 0777, "$lib/deep" or die;
is $get->('/backuppc/deep.cgi')->{status}, 500, '... refused when a directory between is writable by anyone';
chmod 0755, "$lib/deep" or die;
is $server->stop, 0, 'stopped';

# plackup -s Kamado takes the option too
my $port = free_port();
$server = start_plackup(
    port => $port,
    args => ['--port', $port, '-E', 'deployment', '--cgi-bin', "/backuppc=$cgi", '--cgi-follow-links', $lib],
    app  => 'sub { [200, ["Content-Type" => "text/plain"], ["app"]] }'
);
my $res = read_response($server->send_get('/backuppc/index.cgi'));
is $res && $res->{body}, "BackupPC at /backuppc/index.cgi\n",
    'plackup -s Kamado --cgi-follow-links: the link is followed';
is $server->stop, 0, 'stopped';

my $bad = run_kamado('--cgi-bin', $cgi, '--cgi-follow-links', "$base/nowhere");
isnt $bad->{status}, 0, '--cgi-follow-links with a directory that does not exist: refused';
like $bad->{stderr}, qr{--cgi-follow-links \Q$base\E/nowhere: not a directory}, '... naming the option';
done_testing;
