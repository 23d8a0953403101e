# HEAD gets the headers a GET would get, Content-Length included, and no
# body: a GET pipelined right behind it is parsed from the very next byte.
# Also for streamed and file bodies, and over HTTP/1.0.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all read_until_close parse_response);

my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/file" or die;
print $fh 'f' x 1234;
close $fh;
$ENV{KT_DIR} = $dir;
my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    if ($p eq '/stream') {
        return sub { my $w = shift->([200, ['Content-Type' => 'text/plain']]); $w->write('streamed'); $w->close };
    }
    if ($p eq '/file') { open my $fh, '<', "$ENV{KT_DIR}/file" or die; return [200, ['Content-Type' => 'text/plain'], $fh] }
    [200, ['Content-Type' => 'text/plain', 'X-Method' => $env->{REQUEST_METHOD}], ['hello ', 'world']];
}
APP

my @req = map { "$_->[0] $_->[1] HTTP/1.1\r\nHost: x\r\n\r\n" }
    ['HEAD', '/'], ['GET', '/'], ['HEAD', '/stream'], ['GET', '/stream'], ['HEAD', '/file'], ['GET', '/file'];
my $c = $server->connect;
my ($got, $how) = exchange($c, join('', @req) . "GET /end HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($res, $rest) = parse_all($got, no_body => [1, 0, 1, 0, 1, 0, 0]);
is scalar(@$res), 7, 'seven responses';
is $rest, '', 'nothing else: no HEAD sent a body';
is $how, 'eof', 'closed as asked';

is $res->[0]{status_line}, 'HTTP/1.1 200 OK', 'HEAD: 200';
is $res->[0]{headers}{'content-length'}, 11, 'HEAD: the Content-Length of the body';
is $res->[0]{headers}{'x-method'}, 'HEAD', 'HEAD: the app ran';
is $res->[1]{body}, 'hello world', 'the GET right behind it';
ok !exists $res->[2]{headers}{'transfer-encoding'}, 'HEAD of a stream: no chunked framing announced';
is $res->[3]{body}, 'streamed', 'the GET of the stream behind it';
is $res->[4]{headers}{'content-length'}, 1234, 'HEAD of a file: its size';
is $res->[5]{body}, 'f' x 1234, 'the GET of the file behind it';

my $c2 = $server->connect;
syswrite $c2, "HEAD / HTTP/1.0\r\n\r\n";
my ($got2, $how2) = read_until_close($c2);
my $r = parse_response($got2, no_body => 1);
is $r && $r->{headers}{'content-length'}, 11, 'HTTP/1.0 HEAD: Content-Length';
is $r->{rest}, '', 'and no body';
is $how2, 'eof', 'then closed';
done_testing;
