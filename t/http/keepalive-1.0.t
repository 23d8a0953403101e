# HTTP/1.0: without Connection: keep-alive the server answers with
# Connection: close and closes; with it (what ab -k sends) the response says
# Connection: keep-alive, has a Content-Length, and the connection serves
# the next request.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response);

my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], ["$$ $_[0]{PATH_INFO} $_[0]{SERVER_PROTOCOL}"]] }');

subtest 'plain HTTP/1.0 closes' => sub {
    my $c = $server->connect;
    syswrite $c, "GET /plain HTTP/1.0\r\n\r\n";
    my ($got, $how) = read_until_close($c);
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 200 OK', 'status 200';
    like $res->{body}, qr{ /plain HTTP/1\.0\z}, 'the app saw HTTP/1.0';
    is $res->{headers}{connection}, 'close', 'Connection: close';
    is $res->{rest}, '', 'exactly one response';
    is $how, 'eof', 'and the server closed';
};

subtest 'ab -k' => sub {
    my $c = $server->connect;
    my $buf = '';
    my %pids;
    for my $i (1 .. 4) {
        # byte for byte what ApacheBench 2.3 sends with -k
        syswrite $c, "GET /ab$i HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: 127.0.0.1:" . $server->port
            . "\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n";
        my $res = read_response($c, buffer => \$buf);
        is $res && $res->{status}, 200, "request $i: 200";
        like $res->{body}, qr{ /ab$i HTTP/1\.0\z}, "request $i: its body";
        is $res->{headers}{connection}, 'keep-alive', "request $i: Connection: keep-alive";
        is $res->{headers}{'content-length'}, length $res->{body}, "request $i: Content-Length";
        $pids{ (split / /, $res->{body})[0] }++;
    }
    is $buf, '', 'nothing extra on the connection';
    is scalar(keys %pids), 1, 'one worker, one connection';

    # the same connection, a request without keep-alive: answered, then closed
    syswrite $c, "GET /bye HTTP/1.0\r\n\r\n";
    my ($got, $how) = read_until_close($c);
    my $res = parse_response($got);
    like $res && $res->{body}, qr{ /bye HTTP/1\.0\z}, 'a later request without keep-alive is answered';
    is $res->{headers}{connection}, 'close', 'with Connection: close';
    is $how, 'eof', 'and the connection closed';
};

subtest 'keep-alive, lower case' => sub {
    my $c = $server->connect;
    syswrite $c, "GET /lc HTTP/1.0\r\nconnection: keep-alive\r\n\r\n";
    my $res = read_response($c);
    is $res->{headers}{connection}, 'keep-alive', 'Connection: keep-alive';
    syswrite $c, "GET /lc2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
    like read_response($c)->{body}, qr{ /lc2 }, 'second request served';
};

subtest 'keep-alive and close together: close wins' => sub {
    my $c = $server->connect;
    syswrite $c, "GET /both HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n";
    my ($got, $how) = read_until_close($c);
    my $res = parse_response($got);
    is $res && $res->{headers}{connection}, 'close', 'Connection: close';
    is $how, 'eof', 'closed';
};
done_testing;
