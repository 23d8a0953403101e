# The server stopped (TERM, with a short --graceful-timeout, or INT)
# while a CGI script sleeps: no process of the script's (it, the child it
# forked) outlives the server, in the modes that run it in a process of
# its own (fork, exec); nor does one that lingers after its answer.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);
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
        ok wait_for_file("$root/pids.$mode-$signal", 30), "$name: the script runs" or next;
        my @pids = split ' ', slurp("$root/pids.$mode-$signal");
        kill $signal => $server->pid;
        isnt $server->wait_exit(10), -1, "$name: the server exits";
        ok eventually(sub { !grep { running($_) } @pids }, 20), "$name: no process of the script is left"
            or push @left, @pids;
    }
}
# a script answered but lingering (its output closed), server TERM: the
# worker, which is not busy, exits at once and takes the script along
put_script($root, 'linger.cgi', <<'CGI');
#!/bin/sh
echo "Content-Type: text/plain"
echo
echo "page"
exec >&- 2>&-
echo $$ > "pid.$QUERY_STRING.tmp"
mv "pid.$QUERY_STRING.tmp" "pid.$QUERY_STRING"
sleep 60
CGI
for my $mode (qw(fork exec)) {
    my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $r = read_response($server->send_get("/cgi-bin/linger.cgi?$mode"), timeout => 30);
    is $r && $r->{body}, "page\n", "$mode, lingering: answered";
    ok wait_for_file("$root/pid.$mode", 30), "$mode, lingering: the script runs on" or next;
    my ($pid) = slurp("$root/pid.$mode") =~ /(\d+)/;
    is $server->stop, 0, "$mode, lingering: the server exits 0";
    ok eventually(sub { !running($pid) }, 20), "$mode, lingering: the script is gone" or push @left, $pid;
}
kill KILL => grep { running($_) } @left;
done_testing;
