# TTIN adds a worker, TTOU retires the newest one, never the last. Each
# step waits for the generation's log line, then (bounded) for the count of its
# children; requests are served throughout.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Log qw(log_lines);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";

my $server = start_server(workers => 2, app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');

sub workers { scalar $server->workers }

sub served_ok {
    my ($name) = @_;
    my $res = read_response($server->send_get('/'));
    is $res && $res->{status}, 200, "served: $name";
}

ok eventually(sub { workers() == 2 }), 'two workers to begin with';
my $step = 0;
for my $case (['TTIN', 3], ['TTIN', 4], ['TTOU', 3], ['TTOU', 2], ['TTOU', 1], ['TTOU', 1]) {
    my ($signal, $want) = @$case;
    $step++;
    kill $signal => $server->pid;
    my $line = "TTIN/TTOU: $want worker" . ($want == 1 ? '' : 's');
    # the step-th such line of the log is this step's
    ok eventually(sub {
        my @l = grep { $_->{role} eq 'generation' && $_->{message} =~ /^TTIN\/TTOU: / } log_lines($server->log);
        @l >= $step && $l[$step - 1]{message} eq $line }),
        "$signal: the generation says '$line'";
    ok eventually(sub { workers() == $want }), "$signal: $want worker(s) running";
    served_ok("after $signal, $want worker(s)");
}
unlike $server->log, qr/exited with/, 'no worker failed';
done_testing;
