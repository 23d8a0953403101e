# A client that sends its requests and then shuts down its sending side
# (as nc -N and many scripts do) still gets every response, then the close.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Socket qw(SHUT_WR);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(read_until_close parse_all);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $in = do { local $/; my $fh = $env->{'psgi.input'}; <$fh> } // '';
    [200, ['Content-Type' => 'text/plain'], ["$env->{PATH_INFO} [$in]"]];
}
APP

subtest 'one request' => sub {
    my $c = $server->connect;
    syswrite $c, "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
    shutdown $c, SHUT_WR;
    my ($got, $how) = read_until_close($c);
    my ($res, $rest) = parse_all($got);
    is_deeply [map { $_->{body} } @$res], ['/one [hello]'], 'the response';
    is $rest, '', 'nothing else';
    is $how, 'eof', 'then the close';
};

subtest 'three pipelined requests' => sub {
    my $c = $server->connect;
    syswrite $c, join '', map { "GET /p$_ HTTP/1.1\r\nHost: x\r\n\r\n" } 1 .. 3;
    shutdown $c, SHUT_WR;
    my ($got, $how) = read_until_close($c);
    my ($res, $rest) = parse_all($got);
    is_deeply [map { $_->{body} } @$res], ['/p1 []', '/p2 []', '/p3 []'], 'every response, in order';
    is $rest, '', 'nothing else';
    is $how, 'eof', 'then the close';
};

subtest 'an incomplete request, then the half-close' => sub {
    my $c = $server->connect;
    syswrite $c, "GET /complete HTTP/1.1\r\nHost: x\r\n\r\nGET /incomplete HTTP/1.1\r\nHo";
    shutdown $c, SHUT_WR;
    my ($got, $how) = read_until_close($c);
    my ($res, $rest) = parse_all($got);
    is_deeply [map { $_->{body} } @$res], ['/complete []'], 'the complete request is answered';
    ok $rest eq '' || $rest =~ /\AHTTP\/1\.1 400 /, 'the incomplete one is not served';
    is $how, 'eof', 'then the close';
};
done_testing;
