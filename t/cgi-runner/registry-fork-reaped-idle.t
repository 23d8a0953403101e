# In the in-process modes, children a script forks and leaves running
# are reaped when they exit, while the worker waits for its next request:
# no zombie waits for that request (they did until the worker's next
# one). And the worker catches SIGCHLD only while it waits: a script's
# own waitpid and system() still get their children's exit statuses,
# with earlier scripts' children exiting meanwhile.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Procs qw(zombies_of put_script);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";
my $root = File::Temp::tempdir(CLEANUP => 1);
# five children that outlive the request by a little
put_script($root, 'leave.cgi', <<'CGI');
#!/usr/bin/perl
my @kids;
for (1 .. 5) {
    my $pid = fork;
    if (defined $pid && !$pid) { select undef, undef, undef, 0.5; exit 0 }
    push @kids, $pid;
}
print "Content-Type: text/plain\n\nworker $$ kids @kids\n";
CGI
# its own children waited for, while earlier ones exit
put_script($root, 'wait.cgi', <<'CGI');
#!/usr/bin/perl
my @kids = map { my $pid = fork; if (defined $pid && !$pid) { select undef, undef, undef, 0.3; exit 7 } $pid } 1 .. 3;
my $system = system('sh', '-c', 'sleep 0.4; exit 3') >> 8;
my @status = map { waitpid($_, 0) == $_ ? $? >> 8 : "lost $_" } @kids;
print "Content-Type: text/plain\n\nsystem $system waited @status\n";
CGI
for my $mode (qw(registry perlrun)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $r = read_response($server->send_get('/cgi-bin/leave.cgi'), timeout => 10);
    my ($worker, @kids) = ($r && $r->{body} // '') =~ /^worker (\d+) kids ([\d ]+)$/m ? ($1, split ' ', $2) : ();
    ok $worker && @kids == 5, "$mode: the script left 5 children" or diag explain $r;
    next unless $worker;
    ok eventually(sub { !grep { -e "/proc/$_" } @kids }, 10),
        "$mode: they exit and are reaped with no request after them" or diag 'zombies: ', join ' ', zombies_of($worker);
    is scalar(() = zombies_of($worker)), 0, "$mode: no zombie under the worker";

    # children left again, exiting while the next script waits for its own
    read_response($server->send_get('/cgi-bin/leave.cgi'), timeout => 10);
    $r = read_response($server->send_get('/cgi-bin/wait.cgi'), timeout => 10);
    like $r && $r->{body}, qr/^system 3 waited 7 7 7$/m, "$mode: the script's system() and waitpid get their statuses";
    ok eventually(sub { !zombies_of($worker) }, 10), "$mode: and the earlier children are reaped too";
    is $server->stop, 0, "$mode: the server stops cleanly";
}
done_testing;
