# More pipelined requests than fit the server's 64 KiB read buffer, written
# in one go while the responses are read: every request is answered, in
# order (heads that straddle the end of the buffer are completed, not lost
# or misparsed).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all);

my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], [$_[0]{PATH_INFO}]] }');

my $n = 3000;
# varying lengths, so request boundaries fall everywhere in the buffer
my @req = map { "GET /r$_" . ('x' x ($_ % 37)) . " HTTP/1.1\r\nHost: x\r\nX-N: $_\r\n\r\n" } 1 .. $n;
push @req, "GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $batch = join '', @req;
cmp_ok length $batch, '>', 2 * 65536, 'more than twice the read buffer';

my $c = $server->connect;
my ($got, $how) = exchange($c, $batch, timeout => 20);
is $how, 'eof', 'the server closed after the last request';
my ($res, $rest) = parse_all($got);
is scalar(@$res), $n + 1, 'one response per request';
my @bad = grep { ($res->[$_ - 1]{body} // '') ne "/r$_" . ('x' x ($_ % 37)) } 1 .. $n;
is scalar(@bad), 0, 'each in order with its own body' or diag "first wrong: $bad[0]";
is $res->[-1]{body}, '/last', 'the last one last';
is $rest, '', 'nothing else';
done_testing;
