# kamado --reload watching a directory that also holds what kamado writes
# and a symbolic link out of the tree:
#   - the --scoreboard file there is written under a temporary name
#     (FILE.XXXXXX) by every new generation, and the --pid-file under
#     .NAME.PID.NNNNNN: neither counts as a change, so one edit makes one
#     reload, not one every 0.3 s for ever;
#   - a link to a directory outside (30 directories deep in files) is not
#     followed: the watcher holds one inotify watch per directory of the
#     tree itself, and a change out there reloads nothing.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response wait_until eventually);

my $dir = File::Temp->newdir;
my $outside = File::Temp->newdir;
mkdir "$outside/d$_" or die $! for 1 .. 30;
symlink "$outside", "$dir/linked" or die $!;
mkdir "$dir/lib" or die $!;
sub spit {
    my ($file, $text) = @_;
    open my $fh, '>', "$file.tmp" or die $!;
    print $fh $text;
    close $fh;
    rename "$file.tmp", $file or die $!;
}
spit("$dir/lib/x.pm", "1;\n");
spit("$outside/d1/x.pm", "1;\n");
my $app = sub { qq{sub { [200, ["Content-Type" => "text/plain"], ["$_[0]"]] }\n} };
spit("$dir/app.psgi", $app->('v1'));
my $server = start_server(app_file => "$dir/app.psgi",
    args => ['--reload', '--scoreboard', "$dir/kamado.sb", '--pid-file', "$dir/kamado.pid"]);
sub body { my $res = read_response($server->send_get('/')); $res && $res->{status} == 200 ? $res->{body} : 'error' }
sub reloads { my @r = $server->log =~ /--reload: (.*); loading/g; @r }

# the watcher's inotify watches, from /proc
my ($watcher) = grep {
    open my $c, '<', "/proc/$_/cmdline" or 0; (scalar(<$c>) // '') =~ /^kamado reload watcher/
} map { m{/proc/(\d+)/stat} ? $1 : () } grep {
    open my $s, '<', $_ or 0; (scalar(<$s>) // '') =~ /^\d+ \(.*\) \S+ ${\ $server->pid } /s
} glob '/proc/[0-9]*/stat';
ok $watcher, 'the watcher runs';
my $watches = 0;
for my $fd (glob "/proc/$watcher/fdinfo/*") {
    open my $in, '<', $fd or next;
    $watches += () = do { local $/; <$in> } =~ /^inotify wd:/mg;
}
is $watches, 2, 'two inotify watches: the app directory and lib/, none through the link';

spit("$dir/app.psgi", $app->('v2'));
wait_until { body() eq 'v2' } 'an edit is served';
ok eventually(sub { $server->log =~ /generation 2 serves/ }), 'by generation 2';
# the bug reloaded every 0.3 s: 3 s is ten of those
my $until = Time::HiRes::time() + 3;
Time::HiRes::sleep(0.1) while Time::HiRes::time() < $until && $server->log !~ /generation 3 /;
is_deeply [reloads()], ["changed: $dir/app.psgi"], 'one reload, for the edit alone';

spit("$outside/d1/x.pm", "2;\n");
spit("$dir/lib/x.pm", "2;\n");
ok eventually(sub { reloads() == 2 }), 'an edit under lib/ reloads';
is((reloads())[1], "changed: $dir/lib/x.pm", 'and names that file alone, not the one through the link');
unlike $server->log, qr/kamado\.sb\.|\.kamado\.pid\./, 'the temporary names are never named';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
