# Registry mode under autoscaling: a worker retired when idle
# (--max-worker-idle) runs its scripts' PersistentPerl shutdown handlers
# as it ends; the worker that stays runs none. A request held in the
# script (until a file appears) makes the generation add a second worker,
# which serves the next; both then idle, one is retired.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $out = File::Temp::tempdir(CLEANUP => 1);
sub lines {
    open my $fh, '<', "$out/shutdown" or return ();
    return map { chomp; $_ } <$fh>;
}
put_script($root, 'handler.cgi', <<"CGI");
#!/usr/bin/perl
use PersistentPerl;
our \$pp;
if (!defined \$pp) {
    \$pp = PersistentPerl->new;
    \$pp->add_shutdown_handler(sub { open my \$f, '>>', "$out/shutdown"; print \$f "\$\$\\n" });
}
if ((\$ENV{QUERY_STRING} // '') eq 'hold') {
    select undef, undef, undef, 0.01 until -e "$out/go";
}
print "Content-Type: text/plain\\n\\npid=\$\$\\n";
CGI

my $server = start_server(no_app => 1,
    args => ['--cgi-bin', $root, '--cgi-mode', 'registry', '--min-workers', 1, '--max-workers', 2, '--max-worker-idle', 1]);
my $held = $server->send_get('/cgi-bin/handler.cgi?hold');
wait_until { $server->log =~ /scaling up to 2 workers/ && $server->workers == 2 } 'a held request: a second worker';
my ($second) = get_script($server, 'handler.cgi')->{body} =~ /pid=(\d+)/;
open my $go, '>', "$out/go" or die;
close $go;
my ($first) = (read_response($held, timeout => 10) // {})->{body} =~ /pid=(\d+)/;
ok $first && $second && $first != $second, 'the two requests in two workers';
wait_until { $server->log =~ /retiring idle worker (\d+)/ } 'idle: one worker retired';
my ($retired) = $server->log =~ /retiring idle worker (\d+)/;
wait_until { lines() } 'the retired worker ran the handler';
is_deeply [lines()], [$retired], 'the retired worker, and it alone';
ok kill(0, $retired == $first ? $second : $first), 'the other worker serves on';
is $server->stop, 0, 'TERM: exit 0';
is_deeply [sort { $a <=> $b } lines()], [sort { $a <=> $b } $first, $second], 'then the other ran its handler';
done_testing;
