# In the in-process modes a script that forks children and does not wait
# for them (under CGI, init reaps them once the script has exited) leaves
# no zombies in the worker: they do not pile up request after request.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Procs qw(zombies_of live_children_of put_script);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";
my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'spawn.cgi', <<'CGI');
#!/usr/bin/perl
for (1 .. 5) {
    my $pid = fork;
    if (defined $pid && !$pid) { exit 0 }
}
print "Content-Type: text/plain\n\nworker $$\n";
CGI
put_script($root, 'quick.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\nquick\\n};\n");
for my $mode (qw(registry perlrun)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my %workers;
    for (1 .. 3) {
        my $r = read_response($server->send_get('/cgi-bin/spawn.cgi'), timeout => 30);
        $workers{$1}++ if $r && $r->{body} =~ /^worker (\d+)$/m;
    }
    my ($worker) = keys %workers;
    is scalar keys %workers, 1, "$mode: one worker ran the script" or next;
    # the children have exited; then a CGI request
    ok eventually(sub { !live_children_of($worker) }, 30), "$mode: the script's children have exited";
    read_response($server->send_get('/cgi-bin/quick.cgi'), timeout => 30);
    my @zombies = zombies_of($worker);
    is scalar @zombies, 0, "$mode: no zombies under the worker after 15 children" or diag "zombies: @zombies";
    is $server->stop, 0, "$mode: the server stops cleanly";
}
done_testing;
