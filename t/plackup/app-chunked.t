# An app that chunks its own body is framed again, not refused: a
# Mojolicious app's write_chunk under plackup -s Kamado, and
# Plack::Middleware::Chunked over a streamed, a getline and an array body.
# The app's chunks are decoded with the loop's own decoder and the body
# framed by the server: one Transfer-Encoding, each byte once, the
# connection kept; over HTTP/1.0 the bytes alone, ended by the close. A
# malformed app encoding never reaches the client: streamed, the body is
# cut (no last chunk) and the connection closed; whole, a 500; logged
# either way. A coding other than chunked is still a 500.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::HTTP qw(exchange parse_all);
use Kamado::Test::Plackup qw(free_port start_plackup);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(
    qr/the app's chunked encoding is malformed|malformed chunked encoding from the app|Transfer-Encoding from the app other than chunked/
);

my $port = free_port();
my $server = start_plackup(port => $port, args => ['--port', $port], app => <<'APP');
use Mojolicious::Lite -signatures;
use Plack::Builder;
get '/chunks' => sub ($c) {
    $c->write_chunk('hello ' => sub ($c, @) { $c->write_chunk('world' => sub ($c, @) { $c->finish }) });
};
{ package Lines; sub new { my $c = shift; bless [@_], $c } sub getline { shift @{ $_[0] } } sub close { } }
my $mojo = app->start;
my $chunked = builder {
    enable 'Chunked';
    sub {
        my $p = $_[0]{PATH_INFO};
        return [200, ['Content-Type' => 'text/plain'], ['an ', 'array']] if $p eq '/array';
        return [200, ['Content-Type' => 'text/plain'], Lines->new('a ', 'getline ', 'body')] if $p eq '/getline';
        return sub { my $w = $_[0]->([200, ['Content-Type' => 'text/plain']]); $w->write("line $_\n") for 1 .. 3; $w->close };
    };
};
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    my $te = ['Content-Type' => 'text/plain', 'Transfer-Encoding' => 'chunked'];
    return [200, $te, ["5\r\nhello\r\nGARBAGE"]] if $p eq '/bad-array';
    return [200, ['Content-Type' => 'text/plain', 'Transfer-Encoding' => 'gzip'], ['x']] if $p eq '/gzip';
    return sub { my $w = $_[0]->([200, $te]); $w->write("5\r\nhello\r\n"); $w->write("GARBAGE\r\n"); $w->write("0\r\n\r\n"); $w->close }
        if $p eq '/bad-stream';
    return $p =~ m{^/chunked/} ? do { $env->{PATH_INFO} =~ s{^/chunked}{}; $chunked->($env) } : $mojo->($env);
}
APP

sub get {
    my ($path, $proto) = @_;
    $proto //= 'HTTP/1.1';
    my $c = $server->connect;
    my ($got, $how) = exchange($c, "GET $path $proto\r\nHost: x\r\n\r\nGET /chunks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        timeout => 20);
    my ($res, $rest) = parse_all($got);
    return ($res, $rest, $how, $got);
}

my ($res, $rest, $how) = get('/chunks');
is scalar @$res, 2, 'Mojolicious write_chunk: answered, and the next request on the connection too';
is $res->[0]{status}, 200, '200';
is scalar(grep { lc $_->[0] eq 'transfer-encoding' } $res->[0]{header_list}->@*), 1, 'one Transfer-Encoding';
is $res->[0]{raw_body}, "6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n", 'its chunks, framed once';
is $res->[1]{body}, 'hello world', 'the next response too';

my $c = $server->connect;
my ($got, $how10) = exchange($c, "GET /chunks HTTP/1.0\r\n\r\n", timeout => 20);
like $got, qr{\AHTTP/1\.1 200 .*\r\nConnection: close\r\n\r\nhello world\z}s, 'over HTTP/1.0: the bytes alone, then the close';
unlike $got, qr/transfer-encoding/i, '... and no Transfer-Encoding';

for my $case (['/chunked/stream', "line 1\nline 2\nline 3\n"], ['/chunked/getline', 'a getline body'], ['/chunked/array', 'an array']) {
    my ($path, $body) = @$case;
    ($res) = get($path);
    is scalar @$res, 2, "Plack::Middleware::Chunked, $path: answered, the connection kept";
    is $res->[0]{body}, $body, 'the body, decoded and chunked once';
    unlike $res->[0]{raw_body}, qr/\r\n\r\n.+\r\n0\r\n\r\n\r\n/s, 'not chunked twice';
}

($res, $rest, $how, $got) = get('/bad-stream');
like $got, qr{\AHTTP/1\.1 200 .*\r\n\r\n5\r\nhello\r\n\z}s, 'a malformed streamed encoding: cut after the good chunk, no last chunk';
is $how, 'eof', '... and the connection closed';
unlike $got, qr/GARBAGE/, '... the app\'s bytes not passed through';

($res) = get('/bad-array');
is $res->[0]{status}, 500, 'a malformed whole body: 500';
unlike $res->[0]{body}, qr/GARBAGE|hello/, '... nothing of it sent';
($res) = get('/gzip');
is $res->[0]{status}, 500, 'Transfer-Encoding: gzip from the app: still a 500';

is $server->stop, 0, 'stops cleanly';
my $log = $server->log;
like $log, qr{GET /bad-stream HTTP/1\.1: the app's chunked encoding is malformed}, 'the cut one is logged';
like $log, qr{GET /bad-array HTTP/1\.1: invalid response from the app: malformed chunked encoding from the app},
    'the refused one too';
done_testing;
