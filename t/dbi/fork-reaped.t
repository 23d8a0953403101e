# Fork mode with persistent DBI on (the default): a finished script's
# process is gone when its response is, not left a zombie until the next
# request. The worker waits for the script's process group to go (and
# forks a watchdog when it does not), so a zombie held every fork-mode
# request 50 ms.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'pid.cgi', <<'CGI');
#!/usr/bin/perl
print "Content-Type: text/plain\n\n$$\n";
CGI
my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'fork']);

# [pid, state] of every process whose parent is one of PIDS
sub children_of {
    my %parent = map { $_ => 1 } @_;
    my @kids;
    for my $stat (glob '/proc/[0-9]*/stat') {
        open my $fh, '<', $stat or next;
        my ($pid, $state, $ppid) = (<$fh> // '') =~ /^(\d+) \(.*\) (\S) (\d+)/s or next;
        push @kids, [$pid, $state] if $parent{$ppid};
    }
    return @kids;
}

for my $i (1 .. 3) {
    my $res = get_script($server, 'pid.cgi');
    is $res->{status}, 200, "request $i answers";
    my ($script) = $res->{body} =~ /(\d+)/;
    my @worker = $server->workers;
    my @zygote = map { $_->[0] } children_of(@worker);
    ok eventually(sub { !grep { $_->[0] == $script } children_of(@zygote) }, 30),
        "request $i: its script's process is gone, not a zombie of the zygote";
    is scalar(children_of(@worker)), 1, "request $i: the worker has its zygote only, no watchdog";
}
is $server->stop, 0, 'stops cleanly';
done_testing;
