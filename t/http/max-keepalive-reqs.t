# --max-keepalive-reqs 3: a connection serves three requests; the third is
# answered with Connection: close and the connection closes; requests
# pipelined behind it are not answered (the client must resend them).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all);

my $server = start_server(args => ['--max-keepalive-reqs', 3],
    app => 'sub { [200, ["Content-Type" => "text/plain"], [$_[0]{PATH_INFO}]] }');

for my $round (1, 2) {
    my $c = $server->connect;
    my ($got, $how) = exchange($c, join '', map { "GET /r$_ HTTP/1.1\r\nHost: x\r\n\r\n" } 1 .. 5);
    my ($res, $rest) = parse_all($got);
    is_deeply [map { $_->{body} } @$res], ['/r1', '/r2', '/r3'], "connection $round: three requests answered";
    is_deeply [map { $_->{headers}{connection} // '' } @$res], ['', '', 'close'], 'the third with Connection: close';
    is $rest, '', 'nothing else';
    is $how, 'eof', 'then the close';
}
done_testing;
