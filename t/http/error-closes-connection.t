# After a 4xx for a malformed request the connection is closed, even a
# keep-alive connection that served requests before, and a request
# pipelined behind the bad one is never processed (it never reaches the
# app: the app records every request it runs).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::HTTP qw(hit_server hits exchange parse_all);

my $server = hit_server();
my $good = "GET /good HTTP/1.1\r\nHost: x\r\n\r\n";
my $smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
my @bad = (
    ['bad head (space before colon)', "GET /bad HTTP/1.1\r\nHost: x\r\nX-A : 1\r\n\r\n"],
    ['bad body (chunk size)',         "POST /bad HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n"],
    ['smuggling (TE and CL)',         "POST /bad HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"],
);
for my $case (@bad) {
    my ($name, $bytes) = @$case;
    subtest $name => sub {
        my $before = hits($server);
        my $c = $server->connect;
        syswrite $c, $good;
        is read_response($c)->{status}, 200, 'a first request on the connection is served';
        my ($got, $how) = exchange($c, $good . $bytes . $smuggled . $good);
        my ($res, $rest) = parse_all($got);
        is_deeply [map { $_->{status_line} } @$res], ['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request'],
            'the request before it is answered, then 400, then nothing';
        is $res->[1]{headers}{connection}, 'close', 'the 400 says Connection: close';
        is $rest, '', 'not a byte more';
        ok $how eq 'eof' || $how eq 'reset', "the connection is closed ($how)";
        is hits($server), $before . "GET /good 0\nGET /good 0\n", 'only the two good requests before it reached the app';
    };
}
unlike hits($server), qr{smuggled|/bad}, 'neither the bad nor the smuggled requests ever ran';
done_testing;
