# HTTP/1.1 keeps the connection open by default: several requests on one
# connection, each answered with a Content-Length and no Connection header.
# A request with Connection: close (any case, or in a token list) is
# answered with Connection: close and the server then closes.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response);

my $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], ["$$ $_[0]{PATH_INFO}"]] }');

my $c = $server->connect;
my $buf = '';
my %pids;
for my $i (1 .. 5) {
    syswrite $c, "GET /r$i HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, buffer => \$buf);
    is $res && $res->{status}, 200, "request $i on the same connection: 200";
    my ($pid, $path) = split / /, $res->{body} // '';
    is $path, "/r$i", "request $i: its own body";
    $pids{$pid}++;
    is $res->{headers}{'content-length'}, length $res->{body}, "request $i: Content-Length of the array body";
    ok !exists $res->{headers}{connection}, "request $i: no Connection header in HTTP/1.1";
    is $buf, '', "request $i: nothing after the response";
}
is scalar(keys %pids), 1, 'all served by the one worker';

for my $close ('close', 'Close', 'CLOSE', 'x-foo, close', 'close , upgrade') {
    subtest "Connection: $close" => sub {
        my $c = $server->connect;
        syswrite $c, "GET /first HTTP/1.1\r\nHost: x\r\n\r\n";
        is read_response($c)->{status}, 200, 'a first keep-alive request';
        syswrite $c, "GET /last HTTP/1.1\r\nHost: x\r\nConnection: $close\r\n\r\n";
        my ($got, $how) = read_until_close($c);
        my $res = parse_response($got);
        is $res && $res->{status_line}, 'HTTP/1.1 200 OK', 'answered';
        like $res->{body}, qr{ /last\z}, 'with its body';
        is $res->{headers}{connection}, 'close', 'with Connection: close';
        is $res->{rest}, '', 'exactly one response';
        is $how, 'eof', 'then the server closed the connection';
    };
}
done_testing;
