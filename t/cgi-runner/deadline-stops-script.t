# A CGI script past a deadline (--request-timeout, --cgi-timeout), in the
# modes that run it in a process of its own (fork, exec): the client gets
# 504 (nothing was sent yet), and the script's process group is stopped,
# TERM then KILL after a grace: the script and the child it forked are
# gone shortly after, even when both ignore TERM.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::HTTP qw(wait_for_file slurp);
use Kamado::Test::Procs qw(running put_script);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(
    qr/no output for \d+ s \(--cgi-timeout\): stopping it|ran for more than \d+ s \(--cgi-timeout\)/);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";
my $root = File::Temp::tempdir(CLEANUP => 1);
# (writes its pid and its child's to pids.QUERY in its directory)
put_script($root, 'stuck.cgi', <<'CGI');
#!/usr/bin/perl
$SIG{TERM} = 'IGNORE' if $ENV{QUERY_STRING} =~ /stubborn/;
my $kid = fork;
if (!$kid) { sleep 60; exit 0 }
open F, ">pids.$ENV{QUERY_STRING}.tmp" or die; print F "$$ $kid\n"; close F;
rename "pids.$ENV{QUERY_STRING}.tmp", "pids.$ENV{QUERY_STRING}";
sleep 60;
CGI
my @left;
for my $mode (qw(fork exec)) {
    for my $deadline ('--request-timeout', '--cgi-timeout') {
        my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode, $deadline, 1]);
        for my $kind (qw(plain stubborn)) {
            my $q = "$mode$deadline-$kind";
            my $name = "$mode, $deadline 1, $kind";
            my $r = read_response($server->send_get("/cgi-bin/stuck.cgi?$q"), timeout => 30);
            is $r && $r->{status}, 504, "$name: 504";
            ok wait_for_file("$root/pids.$q", 10), "$name: the script ran" or next;
            my @pids = split ' ', slurp("$root/pids.$q");
            ok eventually(sub { !grep { running($_) } @pids }, 15), "$name: the script and its child are gone"
                or push @left, @pids;
        }
        is $server->stop, 0, "$mode, $deadline: the server stops cleanly";
    }
}
# (what a failing run left)
kill KILL => grep { running($_) } @left;
done_testing;
