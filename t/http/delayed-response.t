# A delayed response, sub { my $respond = shift; $respond->([status,
# headers, body]) }, is sent like a plain one (Content-Length computed for
# an array body, keep-alive kept), including when the responder is called
# with a getline body; and an app that never calls the responder gets 500.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(exchange parse_all);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/app never called the responder/);

my $server = start_server(app => <<'APP');
package Lines { sub new { my ($c, @l) = @_; bless [@l], $c } sub getline { shift @{ $_[0] } } sub close {} }
sub {
    my $env = shift;
    my $path = $env->{PATH_INFO};
    return sub { 1 } if $path eq '/never';
    return sub {
        my $respond = shift;
        return $respond->([201, ['Content-Type' => 'text/plain', 'X-Path' => $path], Lines->new('get', 'line')])
            if $path eq '/getline';
        $respond->([200, ['Content-Type' => 'text/plain', 'X-Path' => $path], ['delayed ', $path]]);
    };
}
APP

my $c = $server->connect;
my ($got, $how) = exchange($c, join('', map { "GET $_ HTTP/1.1\r\nHost: x\r\n\r\n" } '/one', '/getline', '/never')
    . "GET /two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($res, $rest) = parse_all($got);
is $how, 'eof', 'closed after the last request, as it asked';
is $rest, '', 'nothing else';
# /never is a 500 that keeps the connection: four responses, then the close
is_deeply [map { $_->{status_line} } @$res],
    ['HTTP/1.1 200 OK', 'HTTP/1.1 201 Created', 'HTTP/1.1 500 Internal Server Error', 'HTTP/1.1 200 OK'],
    'four responses in order';
is $res->[0]{body}, 'delayed /one', 'the array body';
is $res->[0]{headers}{'content-length'}, 12, 'with a computed Content-Length';
is $res->[0]{headers}{'x-path'}, '/one', 'and the app\'s headers';
is $res->[1]{body}, 'getline', 'a getline body through the responder';
is $res->[3]{body}, 'delayed /two', 'the connection still serves after all that';
like $server->log, qr{GET /never HTTP/1\.1: app never called the responder}, 'the forgotten responder is logged';
done_testing;
