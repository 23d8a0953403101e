# --error-log FILE takes the log and every process's STDERR (the app's
# warnings too); after the file is moved away (logrotate), USR1 makes the
# supervisor, the generation and every worker reopen it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::HTTP qw(slurp);

my $dir = File::Temp::tempdir(CLEANUP => 1);
my $log = "$dir/error.log";
my $server = start_server(workers => 2, no_wait => 1, args => ['--error-log', $log], app => <<'APP');
sub {
    my $env = shift;
    warn "warned by $$ for $env->{PATH_INFO}\n";
    die "died for $env->{PATH_INFO}\n" if $env->{PATH_INFO} eq '/die';
    [200, ['Content-Type' => 'text/plain'], [$$]];
}
APP

sub get { my $res = read_response($server->send_get($_[0])); $res ? $res->{status} : 0 }

wait_until { (slurp($log) // '') =~ /accepting connections/ } 'the log goes to --error-log';
is $server->log, '', 'nothing on the terminal';
is get('/a'), 200, 'a request';
like slurp($log), qr{^warned by \d+ for /a$}m, "the app's warning is in the file";

rename $log, "$log.1" or die;
kill USR1 => $server->pid;
wait_until { (slurp($log) // '') =~ /USR1: reopened \Q$log\E/ } 'USR1: the supervisor reopens the file';
# every process's fd 2, seen from /proc
sub stderr_of { readlink "/proc/$_[0]/fd/2" // '' }
my @procs = ($server->pid, $server->generations, $server->workers);
is scalar @procs, 4, 'a supervisor, a generation, two workers';
wait_until { !grep { stderr_of($_) ne $log } @procs } 'all of them reopened it';
my $old = slurp("$log.1");
get("/c$_") for 1 .. 20;
my $new = slurp($log);
is scalar(() = $new =~ m{^warned by \d+ for /c\d+$}mg), 20, 'every later warning is in the new file';
is slurp("$log.1"), $old, 'and none in the old one';
is get('/die'), 500, 'an app that dies';
like slurp($log), qr{died for /die}, 'is logged in the new file';

is $server->stop, 0, 'TERM: exit 0';
done_testing;
