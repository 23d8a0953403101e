# The server stopped (TERM, with a short --graceful-timeout, or INT)
# while a CGI script sleeps: no process of the script's (it, the child it
# forked) outlives the server, in the modes that run it in a process of
# its own (fork, exec).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::HTTP qw(wait_for_file slurp);
use Kamado::Test::Procs qw(running put_script);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";
my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'sleeper.cgi', <<'CGI');
#!/usr/bin/perl
my $kid = fork;
if (!$kid) { sleep 60; exit 0 }
open F, ">pids.$ENV{QUERY_STRING}.tmp" or die; print F "$$ $kid\n"; close F;
rename "pids.$ENV{QUERY_STRING}.tmp", "pids.$ENV{QUERY_STRING}";
sleep 60;
CGI
my @left;
for my $mode (qw(fork exec)) {
    for my $signal (qw(TERM INT)) {
        my $name = "$mode, $signal";
        my $server = start_server(no_app => 1,
            args => ['--cgi-bin', $root, '--cgi-mode', $mode, '--graceful-timeout', 1]);
        my $c = $server->send_get("/cgi-bin/sleeper.cgi?$mode-$signal");
        ok wait_for_file("$root/pids.$mode-$signal", 5), "$name: the script runs" or next;
        my @pids = split ' ', slurp("$root/pids.$mode-$signal");
        kill $signal => $server->pid;
        isnt $server->wait_exit(10), -1, "$name: the server exits";
        ok eventually(sub { !grep { running($_) } @pids }, 1), "$name: no process of the script is left"
            or push @left, @pids;
    }
}
kill KILL => grep { running($_) } @left;
done_testing;
