# Recycling never drops a request: with --max-reqs-per-child 40, and with
# --max-worker-age 0.3 s, continuous load on new and keep-alive
# connections sees no error and no status but 200 while the workers are
# replaced again and again. (The age case found a drain that closed a
# connection accepted just before it, its request unread: a reset.)
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::Load;

for my $case (['--max-reqs-per-child', 40], ['--max-worker-age', 0.3]) {
    my $server = start_server(workers => 2, args => $case,
        app => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');
    my %seen;
    my $sample = sub { $seen{$_}++ for $server->workers };
    $sample->();
    my $load = Kamado::Test::Load->start($server, clients => 2);
    my $keepalive = Kamado::Test::Load->start($server, clients => 1, keepalive => 1);
    my $deadline = Time::HiRes::time() + 20;
    # until at least six workers have come and gone
    until (keys %seen >= 8 || Time::HiRes::time() > $deadline) {
        $sample->();
        Time::HiRes::sleep(0.01);
    }
    cmp_ok scalar(keys %seen), '>=', 8, "@$case: workers were replaced (" . scalar(keys %seen) . ' seen)';
    $load->stop_ok("@$case, new connections", 100);
    $keepalive->stop_ok("@$case, keep-alive", 100);
    is $server->stop, 0, "@$case: TERM: exit 0";
    unlike $server->log, qr/exited with/, "@$case: no worker failed";
}
done_testing;
