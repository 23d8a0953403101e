# examples/logrotate/kamado: after the log is moved away, its postrotate
# command (run by sh, as logrotate runs it, with the paths moved into a
# temporary directory) finds kamado by --pid-file and sends USR1; kamado
# logs to a new file at the same path. The command runs as root: a pid
# file that names another process (a user who could write it put that
# pid there) gets it no signal, and USR1 would have ended it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use POSIX ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::HTTP qw(slurp);

my $dir = File::Temp->newdir;
open my $fh, '<', 'examples/logrotate/kamado' or die $!;
my $conf = do { local $/; <$fh> };
my ($postrotate) = $conf =~ /^\s*postrotate\n(.*?)^\s*endscript/ms or die 'no postrotate';
my ($logs) = $conf =~ m{^(/\S+)\s*\{}m or die 'no log path';
like $logs, qr{\A/var/log/kamado/\*\.log\z}, 'it rotates /var/log/kamado/*.log';
$postrotate =~ s{/run/kamado/}{$dir/}g;

my $log = "$dir/error.log";
my $server = start_server(no_wait => 1, args => ['--error-log', $log, '--pid-file', "$dir/kamado.pid"],
    app => 'sub { warn "request\n"; [200, [], ["ok"]] }');
ok eventually(sub { (slurp($log) // '') =~ /accepting connections/ }), 'kamado logs to the file';

rename $log, "$log.1" or die $!;
is system('sh', '-c', $postrotate), 0, 'postrotate runs';
ok eventually(sub { (slurp($log) // '') =~ /USR1: reopened/ }), 'kamado reopened the log at the same path';
# (the supervisor passes USR1 on to the generation and its workers: a
# request may reach a worker before the signal does, so it is asked again)
ok eventually(sub {
    read_response($server->send_get('/'));
    (slurp($log) // '') =~ /^request$/m;
}), 'and the workers log there';
is $server->stop, 0, 'TERM: exit 0';

my $victim = fork // die $!;
if (!$victim) { exec 'sleep', '300' or POSIX::_exit(111) }
for my $text ("$victim\n", "../$victim\n", "$victim; touch $dir/owned\n") {
    open my $pf, '>', "$dir/kamado.pid" or die $!;
    print $pf $text;
    close $pf;
    system('sh', '-c', "$postrotate 2>/dev/null");
    ok kill(0, $victim) && waitpid($victim, POSIX::WNOHANG()) == 0, 'a pid file naming another process ('
        . ($text =~ s/\n//r) . '): it gets no signal';
}
ok !-e "$dir/owned", 'and nothing in the file is run';
kill KILL => $victim;
waitpid $victim, 0;
done_testing;
