# USR1 after the log was moved away (logrotate without copytruncate):
# what was served before is in the moved file, the server opens the path
# again, and what it serves once the signal has reached the worker goes
# to the new file; also in the workers forked after the USR1 (the first
# one is recycled by --max-reqs-per-child: the generation reopened the
# file too).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::AccessLog qw(wait_lines log_lines);

my $dir = File::Temp->newdir;
my $log = "$dir/access.log";
my $server = start_server(workers => 1, args => ['--access-log', $log, '--max-reqs-per-child', 20],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$$"]] }');
my $get = sub { my $res = read_response($server->send_get($_[0])); $res && $res->{body} };

$get->("/before$_") for 1 .. 4;
my @before = wait_lines($log, 4);
is scalar(@before), 4, 'four lines before';
rename $log, "$log.1" or die $!;
kill USR1 => $server->pid;
ok eventually(sub { -e $log }), 'USR1: the path is opened again';
# (the signal goes on from the supervisor to the worker: until it is
# there, requests may still go to the old file)
my ($probe, $last) = (0, 0);
ok eventually(sub {
    ($last, undef) = (Time::HiRes::time(), $get->('/probe' . ++$probe)) if Time::HiRes::time() - $last > 0.2;
    log_lines($log) > 0;
}, 10), 'the worker writes to the new file';
note "$probe probes";
my %pids;
for my $i (1 .. 40) { $pids{ $get->("/after$i") // '' }++ }
cmp_ok scalar(keys %pids), '>=', 2, 'workers forked after the USR1 served some of them';
is $server->stop, 0, 'the server stops cleanly';
my @old = log_lines("$log.1");
my @new = log_lines($log);
is_deeply [grep { !/probe/ } map { m{"GET (/\w+) } ? $1 : '?' } @old], [map { "/before$_" } 1 .. 4],
    'the moved file has the lines from before';
is_deeply [sort grep { !/probe/ } map { m{"GET (/\w+) } ? $1 : '?' } @new], [sort map { "/after$_" } 1 .. 40],
    'the new file has every line from after, the new worker\'s too';
is scalar(grep { /probe/ } @old, @new), $probe, 'and every probe is in one of them';
done_testing;
