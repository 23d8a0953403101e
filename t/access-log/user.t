# --access-log with --user nobody, started as root: the file is opened
# before the drop, so a file only root may write gets the workers' (now
# nobody's) lines.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines);

plan skip_all => 'needs root' if $>;
getpwnam('nobody') or plan skip_all => 'needs a user nobody';

my $dir = File::Temp->newdir;
chmod 0755, "$dir" or die $!;    # nobody may read the app, not write here
my $log = "$dir/access.log";
my $app = "$dir/app.psgi";
open my $fh, '>', $app or die $!;
print $fh qq{sub { [200, ["Content-Type" => "text/plain"], [\$<]] }\n};
close $fh;
chmod 0644, $app or die $!;
open $fh, '>', $log or die $!;
close $fh;
chmod 0644, $log or die $!;    # root's: nobody could not open it

my $server = start_server(app_file => $app, args => ['--user', 'nobody', '--access-log', $log]);
my $res = read_response($server->send_get('/as-nobody'));
is $res && $res->{body}, scalar(getpwnam 'nobody'), 'the app runs as nobody';
my @lines = wait_lines($log, 1);
like $lines[0] // '', qr{"GET /as-nobody HTTP/1\.1" 200 }, 'its line is in the root-owned file';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
