# With --max-reqs-per-child and --max-worker-age the loop still serves
# the plain requests with the app called from C (the app's caller is
# Kamado::Server::run, not handle_request), and counts them: a worker
# with a budget of 3 serves 3 over keep-alive, then one more with
# Connection: close as it drains, and a new worker serves the next; a
# worker kept busy past its age is replaced although it never idles. Run
# by kamado and by plackup -s Kamado.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $app = <<'APP';
sub {
    my $by = '-';
    for (my $i = 1; my @frame = caller $i; $i++) {
        next unless $frame[3] =~ /^Kamado::Server::(\w+)$/;
        $by = $1;
        last;
    }
    [200, ['Content-Type' => 'text/plain'], ["$$ $by"]];
}
APP

# [pid, the app's caller, Connection: close] of each request on one
# keep-alive connection, until the server closes it or $n are sent
sub series {
    my ($server, $n) = @_;
    my $c = $server->connect;
    my ($buf, @got) = ('');
    for my $i (1 .. $n) {
        syswrite $c, "GET /r$i HTTP/1.1\r\nHost: x\r\n\r\n" or last;
        my $res = read_response($c, buffer => \$buf) or last;
        my ($pid, $by) = split ' ', $res->{body};
        push @got, [$pid, $by, ($res->{headers}{connection} // '') eq 'close' ? 1 : 0];
        last if $got[-1][2];
    }
    return @got;
}

sub budget_case {
    my ($name, $server) = @_;
    my @first = series($server, 10);
    is scalar @first, 4, "$name: 4 requests on the first connection, then the close";
    is_deeply [map { $_->[1] } @first[0 .. 2]], [('run') x 3], "$name: the first 3 served by the loop in C";
    is_deeply [map { $_->[2] } @first], [0, 0, 0, 1], "$name: the 4th, as the worker drains, with Connection: close";
    my %pids = map { $_->[0] => 1 } @first;
    is scalar(keys %pids), 1, "$name: by one worker";
    my @next = series($server, 2);
    ok @next && $next[0][0] ne $first[0][0], "$name: a new worker serves the next connection";
    is $next[0][1], 'run', "$name: from C too";
    unlike $server->log, qr/exited with|worker failed/, "$name: no worker failed";
}

budget_case('kamado', start_server(workers => 1, args => ['--max-reqs-per-child', 3], app => $app));
{
    my $port = free_port();
    my $server = start_plackup(
        port => $port, app => $app,
        args => ['-E', 'deployment', '--port', $port, '--host', '127.0.0.1', '--workers', 1, '--max-reqs-per-child', 3]
    );
    budget_case('plackup', $server);
}

# --max-worker-age 0.5 (0.4 to 0.5 s with its jitter) and no pause in the
# requests: the worker retires after a request, not at an idle tick
my $server = start_server(workers => 1, args => ['--max-worker-age', 0.5], app => $app);
my $deadline = Time::HiRes::time() + 20;
my (%pids, %by, $replaced);
until ($replaced || Time::HiRes::time() > $deadline) {
    for my $r (series($server, 1000)) {
        $pids{ $r->[0] }++;
        $by{ $r->[1] }++;
    }
    $replaced = keys %pids > 1;
}
ok $replaced, 'a busy worker past --max-worker-age is replaced';
ok $by{run} && $by{run} > 1, "its requests were served by the loop in C ($by{run})";
unlike $server->log, qr/exited with|worker failed/, 'no worker failed';
done_testing;
