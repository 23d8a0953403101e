# A streamed response without Content-Length over HTTP/1.0 is not chunked
# (1.0 clients do not know chunked): the raw body ends at the close, and the
# response says Connection: close even when keep-alive was asked. With the
# app's Content-Length, keep-alive is kept.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    return sub {
        my $respond = shift;
        my @cl = $env->{PATH_INFO} eq '/with-length' ? ('Content-Length' => 18) : ();
        my $w = $respond->([200, ['Content-Type' => 'text/plain', @cl]]);
        $w->write("part$_;") for 1 .. 3;
        $w->write('');
        $w->close;
    };
}
APP

for my $ka ('', "Connection: keep-alive\r\n") {
    my $name = $ka ? 'with keep-alive asked' : 'plain 1.0';
    my $c = $server->connect;
    syswrite $c, "GET / HTTP/1.0\r\n$ka\r\n";
    my ($got, $how) = read_until_close($c);
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 200 OK', "$name: status";
    ok !exists $res->{headers}{'transfer-encoding'}, "$name: not chunked";
    ok !exists $res->{headers}{'content-length'}, "$name: no Content-Length";
    is $res->{headers}{connection}, 'close', "$name: Connection: close";
    is $res->{raw_body}, 'part1;part2;part3;', "$name: the raw body, up to the close";
    is $how, 'eof', "$name: closed";
}

my $c = $server->connect;
my $buf = '';
for my $i (1, 2) {
    syswrite $c, "GET /with-length HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
    my $res = read_response($c, buffer => \$buf);
    is $res && $res->{headers}{connection}, 'keep-alive', "with the app's Content-Length, request $i: keep-alive";
    is $res->{body}, 'part1;part2;part3;', "request $i: body";
}
is $buf, '', 'nothing extra';
done_testing;
