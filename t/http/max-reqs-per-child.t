# --max-reqs-per-child 5 with one worker: 20 requests over keep-alive all
# succeed; a worker that has spent its budget answers with
# Connection: close (at most one more request on its connection) and is
# replaced, so several pids serve, none more than 6 requests; a client
# that reconnects when told to never sees an error, and no worker fails.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close);

my $server = start_server(workers => 1, args => ['--max-reqs-per-child', 5],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$$ $_[0]{PATH_INFO}"]] }');

my ($c, $buf);
my (%count, @seq, @failed);
my $connections = 0;
for my $i (1 .. 20) {
    if (!$c) { $c = $server->connect; $buf = ''; $connections++ }
    syswrite $c, "GET /r$i HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, buffer => \$buf);
    my ($pid, $path) = split / /, ($res && $res->{body}) // '';
    if (!$res || $res->{status} != 200 || $path ne "/r$i") { push @failed, $i; undef $c; next }
    $count{$pid}++;
    push @seq, $pid;
    if (($res->{headers}{connection} // '') eq 'close') {
        my ($rest, $how) = read_until_close($c);
        is "$buf$rest|$how", '|eof', "request $i: Connection: close, then the close";
        undef $c;
    }
}
is_deeply \@failed, [], 'all 20 requests succeeded';
cmp_ok scalar(keys %count), '>=', 3, scalar(keys %count) . ' different pids served them';
my @over = grep { $count{$_} > 6 } keys %count;
is_deeply \@over, [], 'no worker served more than its 5 plus one on its open connection';
# a pid never comes back once replaced
my @runs = grep { $_ ne '' } map { $seq[$_] eq ($seq[$_ - 1] // '') ? '' : $seq[$_] } 0 .. $#seq;
is scalar(@runs), scalar(keys %count), 'each worker served one run of requests, then was gone';
cmp_ok $connections, '>', 1, "the client reconnected $connections times when told to";
unlike $server->log, qr{exited with|worker failed}, 'no worker failed';
done_testing;
