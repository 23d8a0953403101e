# Pipelined requests are answered in order, whether they arrive in one
# write or byte by byte.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $body = $env->{PATH_INFO};
    if ($env->{CONTENT_LENGTH}) { $env->{'psgi.input'}->read(my $in, $env->{CONTENT_LENGTH}); $body .= ":$in" }
    [200, ['Content-Type' => 'text/plain'], [$body]];
}
APP
my $batch = join '', map { "GET /p$_ HTTP/1.1\r\nHost: x\r\n\r\n" } 1 .. 10;
$batch .= "POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
$batch .= "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
$batch .= "GET /end HTTP/1.1\r\nHost: x\r\n\r\n";
my @want = ((map { "/p$_" } 1 .. 10), '/post:hello', '/chunked:abc', '/end');

for my $mode ('one write', 'byte by byte') {
    my $c = $server->connect;
    if ($mode eq 'one write') {
        syswrite $c, $batch;
    } else {
        syswrite $c, $_ for split //, $batch;
    }
    my $buf = '';
    my @got = map { my $r = read_response($c, buffer => \$buf); $r ? $r->{body} : undef } @want;
    is_deeply \@got, \@want, "$mode: every response, in order";
}
done_testing;
