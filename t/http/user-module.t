# -I DIR -MModule with --user nobody, started as root, where nobody can
# write DIR (an app's lib/): the module is loaded once the drop has taken
# effect, so what it runs at load time runs as nobody, never as root.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);

plan skip_all => 'needs root' if $>;
my (undef, undef, $uid, $gid) = getpwnam('nobody') or plan skip_all => 'needs a user nobody';

my $dir = File::Temp->newdir;
chmod 0755, "$dir" or die $!;
mkdir $_, 0755 or die "$_: $!" for "$dir/lib", "$dir/lib/My";
chown $uid, $gid, "$dir/lib", "$dir/lib/My" or die $!;    # nobody's: it can put code there
open my $fh, '>', "$dir/lib/My/Preload.pm" or die $!;
print $fh <<'PM';
package My::Preload;
open my $out, '>', "$INC{'My/Preload.pm'}.ran" or die "can't write: $!";
print $out "$< $>\n";
close $out;
our $IMPORTED;
sub import { shift; $IMPORTED = "@_" }
1;
PM
close $fh;
chown $uid, $gid, "$dir/lib/My/Preload.pm" or die $!;
open $fh, '>', "$dir/app.psgi" or die $!;
print $fh qq{sub { [200, ["Content-Type" => "text/plain"], ["\$My::Preload::IMPORTED"]] }\n};
close $fh;
chmod 0644, "$dir/app.psgi" or die $!;

my $server = start_server(app_file => "$dir/app.psgi",
    args => ['--user', 'nobody', '-I', "$dir/lib", '-MMy::Preload=a,b']);
open my $in, '<', "$dir/lib/My/Preload.pm.ran" or die "the module did not run: $!";
is scalar(<$in>), "$uid $uid\n", 'the -M module ran as nobody (real and effective uid), not as root';
my $res = read_response($server->send_get('/'));
is $res && $res->{body}, 'a b', 'it was imported with its list, before the app loaded';
is $server->stop, 0, 'the server stops cleanly';

# a module that does not load: one line, exit 2
$server = start_server(app_file => "$dir/app.psgi", no_wait => 1, args => ['--user', 'nobody', '-MNo::Such::Module']);
is $server->wait_exit(30), 2 << 8, 'a missing -M module stops kamado with exit 2';
like $server->log, qr/\Akamado: can't load module No::Such::Module: /, 'naming it';
done_testing;
