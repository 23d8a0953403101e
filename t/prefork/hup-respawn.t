# The generation replaces a worker that dies, and HUP replaces every worker,
# while requests keep being answered.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response wait_until);

my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }', workers => 2);

sub worker_pid {
    my $c = $server->connect;
    print $c "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    my $res = read_response($c) or return undef;
    return $res->{status} == 200 ? $res->{body} : undef;
}

sub pids_seen {
    my ($n) = @_;
    my %seen;
    $seen{ worker_pid() // 'error' }++ for 1 .. $n;
    return \%seen;
}

my $victim = worker_pid();
like $victim, qr/^\d+\z/, 'a worker answers';
kill KILL => $victim;
# gone, or a zombie the generation has yet to reap
sub gone { my $pid = shift; open my $f, '<', "/proc/$pid/stat" or return 1; <$f> =~ /\) Z / }
wait_until { gone($victim) } 'the killed worker is gone';
wait_until { my $p = worker_pid(); defined $p && $p != $victim } 'a request is served after the kill';
my $before = pids_seen(40);
ok !$before->{error}, 'no errors after a worker was killed';
ok !$before->{$victim}, 'the dead worker is not serving';

kill HUP => $server->pid;
wait_until {
    my $now = pids_seen(10);
    !grep { $before->{$_} } keys %$now;
} 'after HUP only new workers answer';
my $after = pids_seen(40);
ok !$after->{error}, 'no errors after HUP';
is scalar(grep { $_ ne 'error' } keys %$after) <= 2, 1, 'still at most two workers';

is $server->stop, 0, 'TERM: kamado exits with status 0';
unlike $server->log, qr/exited with signal (?!9\b)/, 'no worker died of a signal other than the KILL';
done_testing;
