# --max-worker-age: a worker that has served for that long is replaced,
# and a client making requests throughout sees no error: the old worker
# stops accepting and finishes, its replacement is started at once.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 1, args => ['--max-worker-age', '1'],
    app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');

my (%pids, $errors, $requests);
my $deadline = Time::HiRes::time() + 15;
while (keys %pids < 3 && Time::HiRes::time() < $deadline) {
    my $res = read_response($server->send_get('/'), timeout => 5);
    $requests++;
    if ($res && $res->{status} == 200) { $pids{ $res->{body} }++ } else { $errors++ }
    Time::HiRes::sleep(0.01);
}
is scalar(keys %pids), 3, 'three workers in turn served (the first two replaced for their age)';
is $errors // 0, 0, "no request failed ($requests made)";
unlike $server->log, qr/exited with/, 'every worker exited cleanly';
done_testing;
