# Requests the event loop answers itself, without the app, are logged
# too, one line each: a malformed request line (400), a head with too
# many fields (431), a request line over the limit (414), a
# Content-Length over --max-request-body (413), a chunked body that grows
# over it (413), a head that does not come in time (408). Each line has
# the client, the request line as far as it came, the status and the
# bytes of the canned answer's body; a good request after them is logged
# as usual.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines parse_combined);
use Kamado::Test::HTTP qw(read_until_close);

my $dir = File::Temp->newdir;
my $log = "$dir/access.log";
my $server = start_server(
    args => ['--access-log', $log, '--max-request-body', 100, '--header-timeout', 0.5],
    app  => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');

my $H = "Host: x\r\n";
my @cases = (
    ['bad request line', "GARBAGE\r\n\r\n", 400, 'GARBAGE  '],
    ['too many fields', "GET /many HTTP/1.1\r\n$H" . join('', map { "X-F$_: $_\r\n" } 1 .. 150) . "\r\n", 431, 'GET /many HTTP/1.1'],
    ['request line too long', "GET /" . ('a' x 9000) . " HTTP/1.1\r\n$H\r\n", 414, undef],
    ['Content-Length over the limit', "POST /big HTTP/1.1\r\n${H}Content-Length: 101\r\n\r\n", 413, 'POST /big HTTP/1.1'],
    ['chunked body over the limit', "POST /chunked HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n80\r\n" . ('c' x 128) . "\r\n0\r\n\r\n",
        413, 'POST /chunked HTTP/1.1'],
    ['head not in time', "GET /slow HTTP/1.1\r\n$H", 408, 'GET /slow HTTP/1.1'],
);
my %reason = (400 => 'Bad Request', 408 => 'Request Timeout', 413 => 'Content Too Large', 414 => 'URI Too Long',
    431 => 'Request Header Fields Too Large');
for my $case (@cases) {
    my $c = $server->connect;
    syswrite $c, $case->[1];
    my ($got) = read_until_close($c, 10);
    like $got, qr{\AHTTP/1\.1 $case->[2] }, "$case->[0]: $case->[2]";
}
my $c = $server->send_get('/after');
is read_response($c)->{status}, 200, 'then a good request';

my @lines = wait_lines($log, @cases + 1);
is scalar(@lines), @cases + 1, 'one line for each' or diag @lines;
for my $i (0 .. $#cases) {
    my ($name, undef, $status, $request) = @{ $cases[$i] };
    my $f = parse_combined($lines[$i] // '');
    ok $f, "$name: a combined line" or diag $lines[$i];
    next unless $f;
    is $f->{host}, '127.0.0.1', "$name: the client";
    is $f->{status}, $status, "$name: status $status";
    my ($body_length) = length($reason{$status} // '') + 1;
    is $f->{bytes}, $body_length, "$name: the canned body's $body_length bytes";
    if (defined $request) {
        is $f->{request}, $request, "$name: the request line";
    } else {
        like $f->{request}, qr{\AGET /a{100}}, "$name: the request line, as much as is kept";
    }
}
like $lines[-1] // '', qr{"GET /after HTTP/1\.1" 200 2 }, 'the good request after them';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
