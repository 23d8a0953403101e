# PersistentPerl shutdown handlers that take long do not pile up
# recycled workers. A registry script with a 30-second shutdown handler
# calls shutdown_next_time on every request: each request retires its
# worker, which runs the handler on its way out. With --workers 2, at
# most 2 workers are exiting at once (a worker retiring past that keeps
# its place until one has gone), so the server never has more than 4
# worker processes; a handler still running after --graceful-timeout is
# stopped and logged, and every request is answered.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'slow-exit.cgi', <<'CGI');
#!/usr/bin/perl
use PersistentPerl;
our $added;
my $pp = PersistentPerl->new;
$pp->add_shutdown_handler(sub { sleep 30 }) unless $added++;
$pp->shutdown_next_time;
print "Content-Type: text/plain\n\n$$\n";
CGI

my $server = start_server(no_app => 1, workers => 2,
    args => ['--cgi-bin', $root, '--cgi-mode', 'registry', '--graceful-timeout', 2]);
my ($most, @answers) = (0);
for (1 .. 8) {
    my $r = get_script($server, 'slow-exit.cgi');
    push @answers, "$r->{status} " . ($r->{body} =~ /^\d+$/ ? 'pid' : $r->{body});
    my $n = () = $server->workers;
    $most = $n if $n > $most;
}
is_deeply \@answers, [("200 pid") x 8], 'eight requests, each retiring its worker, are answered';
cmp_ok $most, '<=', 4, "at most 4 worker processes for --workers 2 (seen: $most)" or diag $server->log;
ok eventually(sub { my $n = () = $server->workers; $n == 2 }, 30), 'the exiting workers go: 2 workers are left';
like $server->log, qr/PersistentPerl shutdown handler still running after 2 s \(--graceful-timeout\): stopped/,
    'a handler past --graceful-timeout is stopped, and logged';
like $server->log, qr/workers are still exiting \(as many as --workers\): the replacement of worker \d+ waits/,
    'a replacement held back by the bound is logged';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
