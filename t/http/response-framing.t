# The server owns the framing of every response: each row of the table in
# lib/Kamado.pm ("Response framing"), over a real connection with a request
# pipelined behind it. A refused head is a 500 with a log line naming the
# request and why, and the connection serves the next request; a body that
# does not match its Content-Length is cut or left short and the
# connection closed (the pipelined request gets no answer); hop-by-hop
# fields from the app never reach the wire.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server eventually);
use Kamado::Test::HTTP qw(exchange parse_all);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(
    qr/invalid response from the app|body \w+ than its Content-Length|app died: (?:bad status|Transfer-Encoding)|the app's chunked encoding is malformed/
);

my $server = start_server(app => <<'APP');
my $CT = ['Content-Type' => 'text/plain'];
my %res = (
    '/cl-match'      => [200, [@$CT, 'Content-Length' => 2], ['ok']],
    '/cl-longer'     => [200, [@$CT, 'Content-Length' => 2], ['okEXTRA']],
    '/cl-shorter'    => [200, [@$CT, 'Content-Length' => 10], ['ok']],
    '/cl-letters'    => [200, ['Content-Length' => '2x'], ['ok']],
    '/cl-plus'       => [200, ['Content-Length' => '+2'], ['ok']],
    '/cl-minus'      => [200, ['Content-Length' => '-2'], ['ok']],
    '/cl-space'      => [200, ['Content-Length' => '1 1'], ['ok']],
    '/cl-overflow'   => [200, ['Content-Length' => '99999999999999999999'], ['ok']],
    '/cl-empty'      => [200, ['Content-Length' => ''], ['ok']],
    '/cl-list'       => [200, ['Content-Length' => '2, 2'], ['ok']],
    '/cl-two-differ' => [200, ['Content-Length' => 2, 'Content-Length' => 3], ['ok']],
    '/cl-two-same'   => [200, ['Content-Length' => 2, 'content-length' => '2'], ['ok']],
    '/cl-padded'     => [200, ['Content-Length' => ' 2 '], ['ok']],
    '/te-chunked'    => [200, ['Transfer-Encoding' => 'chunked'], ["2\r\nok\r\n0\r\n\r\n"]],
    '/te-identity'   => [200, ['Transfer-Encoding' => 'identity'], ['ok']],
    '/conn-close'    => [200, ['Connection' => 'close'], ['ok']],
    '/conn-ka'       => [200, ['Connection' => 'keep-alive', 'Keep-Alive' => 'timeout=999'], ['ok']],
    '/conn-upgrade'  => [200, ['Connection' => 'Upgrade', 'Upgrade' => 'h2c'], ['ok']],
    '/status-100'    => [100, [], ['ok']],
    '/status-101'    => [101, ['Upgrade' => 'websocket'], ['ok']],
    '/status-199'    => [199, [], ['ok']],
    '/status-99'     => [99, [], ['ok']],
    '/status-1000'   => [1000, [], ['ok']],
    '/status-word'   => ['OK', [], ['ok']],
    '/status-text'   => ['200 OK', [], ['ok']],
    '/status-float'  => [200.5, [], ['ok']],
    '/status-string' => ['201', [], ['ok']],
    '/status-999'    => [999, [], ['ok']],
    '/204-cl'        => [204, ['Content-Length' => 2], ['ok']],
    '/304-cl'        => [304, ['Content-Length' => 2, 'ETag' => '"e"'], ['ok']],
    '/nul-value'     => [200, ['X-A' => "a\0b"], ['ok']],
    '/nul-name'      => [200, ["X\0A" => 'v'], ['ok']],
    '/lf-name'       => [200, ["X\nA" => 'v'], ['ok']],
);
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    return sub { my $w = shift->([200, ['Content-Length' => 10]]); $w->write('ok'); $w->close } if $p eq '/stream-shorter';
    return sub { my $w = shift->([200, ['Content-Length' => 2]]); $w->write('ok'); $w->close } if $p eq '/stream-match';
    return sub { my $w = shift->([200, ['Transfer-Encoding' => 'chunked']]); $w->write("2\r\nok\r\n"); $w->write("0\r\n\r\n"); $w->close } if $p eq '/stream-te';
    return sub { my $w = shift->([200, ['Transfer-Encoding' => 'chunked']]); $w->write('ok'); $w->close } if $p eq '/stream-te-bad';
    return sub { my $w = shift->([150, []]); $w->write('ok'); $w->close } if $p eq '/stream-150';
    return $res{$p} || [200, ['Content-Type' => 'text/plain'], ['next']];
}
APP

# [path, status, body, kept alive, log (a regex) or undef, extra check]
my $ISE = "Internal Server Error\n";
my @rows = (
    ['/cl-match',      200, 'ok', 1, undef],
    ['/cl-longer',     200, 'ok', 0, qr/body longer than its Content-Length: cut/],
    ['/cl-shorter',    200, 'ok', 0, qr/body shorter than its Content-Length/],
    ['/cl-letters',    500, $ISE, 1, qr/bad Content-Length/],
    ['/cl-plus',       500, $ISE, 1, qr/bad Content-Length/],
    ['/cl-minus',      500, $ISE, 1, qr/bad Content-Length/],
    ['/cl-space',      500, $ISE, 1, qr/bad Content-Length/],
    ['/cl-overflow',   500, $ISE, 1, qr/bad Content-Length/],
    ['/cl-empty',      500, $ISE, 1, qr/bad Content-Length/],
    ['/cl-list',       500, $ISE, 1, qr/bad Content-Length/],
    ['/cl-two-differ', 500, $ISE, 1, qr/two different Content-Length values/],
    ['/cl-two-same',   200, 'ok', 1, undef, sub { is scalar(() = $_[0]{head} =~ /^Content-Length:/mgi), 1, 'one Content-Length' }],
    ['/cl-padded',     200, 'ok', 1, undef, sub { like $_[0]{head}, qr/\r\nContent-Length: 2\r\n/, 'written without the spaces' }],
    ['/te-chunked',    200, 'ok', 1, undef, sub { is scalar(() = $_[0]{head} =~ /^Transfer-Encoding: chunked\r?$/mgi), 1, "the app's chunks framed again, once" }],
    ['/te-identity',   500, $ISE, 1, qr/Transfer-Encoding from the app/],
    ['/conn-close',    200, 'ok', 0, undef, sub { is scalar(() = $_[0]{head} =~ /^Connection:/mgi), 1, "one Connection field, the server's" }],
    ['/conn-ka',       200, 'ok', 1, undef, sub { unlike $_[0]{head}, qr/^(?:Connection|Keep-Alive):/mi, 'no Connection or Keep-Alive from the app' }],
    ['/conn-upgrade',  200, 'ok', 1, undef, sub { unlike $_[0]{head}, qr/^Connection:/mi, 'no Connection: Upgrade' }],
    ['/status-100',    500, $ISE, 1, qr/bad status/],
    ['/status-101',    500, $ISE, 1, qr/bad status/],
    ['/status-199',    500, $ISE, 1, qr/bad status/],
    ['/status-99',     500, $ISE, 1, qr/bad status/],
    ['/status-1000',   500, $ISE, 1, qr/bad status/],
    ['/status-word',   500, $ISE, 1, qr/bad status/],
    ['/status-text',   500, $ISE, 1, qr/bad status/],
    ['/status-float',  500, $ISE, 1, qr/bad status/],
    ['/status-string', 201, 'ok', 1, undef],
    ['/status-999',    999, 'ok', 1, undef],
    ['/204-cl',        204, '',   1, undef, sub { unlike $_[0]{head}, qr/^Content-Length:/mi, 'no Content-Length on a 204' }],
    ['/304-cl',        304, '',   1, undef, sub { like $_[0]{head}, qr/^Content-Length: 2\r?$/mi, 'a 304 keeps its Content-Length' }],
    ['/nul-value',     500, $ISE, 1, qr/NUL in a header value/],
    ['/nul-name',      500, $ISE, 1, qr/bad header name/],
    ['/lf-name',       500, $ISE, 1, qr/bad header name/],
    ['/stream-match',  200, 'ok', 1, undef],
    ['/stream-shorter', 200, 'ok', 0, qr/body shorter than its Content-Length/],
    ['/stream-te',     200, 'ok', 1, undef, sub { is scalar(() = $_[0]{head} =~ /^Transfer-Encoding:/mgi), 1, 'one Transfer-Encoding' }],
    ['/stream-te-bad', 200, '', 0, qr/the app's chunked encoding is malformed/],
    ['/stream-150',    500, $ISE, 1, qr/bad status/],
);

for my $row (@rows) {
    my ($path, $status, $body, $alive, $log, $check) = @$row;
    subtest $path => sub {
        my ($got, $how) = exchange($server->connect,
            "GET $path HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        # a body short of its length cannot be parsed as a response: the
        # client sees the declared length, what there is, and the close
        if ($path eq '/stream-te-bad') {
            like $got, qr{\AHTTP/1\.1 200 OK\r\n(?:.+\r\n)*Transfer-Encoding: chunked\r\n(?:.+\r\n)*\r\n\z}, 'a malformed app encoding: the head, nothing of the body';
            is $how, 'eof', 'then closed';
            ok eventually(sub { $server->log =~ m{\]: GET \Q$path\E HTTP/1\.1: .*$log} }), "logged: $log";
            return;
        }
        if ($path =~ /shorter/) {
            like $got, qr{\AHTTP/1\.1 200 OK\r\n(?:.+\r\n)*Content-Length: 10\r\n(?:.+\r\n)*\r\nok\z}, 'the declared length, the short body, nothing after';
            is $how, 'eof', 'then closed';
            ok eventually(sub { $server->log =~ m{\]: GET \Q$path\E HTTP/1\.1: .*$log} }), "logged: $log";
            return;
        }
        my ($res, $rest) = parse_all($got, no_body => [$status == 204 || $status == 304]);
        is $res->[0]{status}, $status, "status $status";
        is $res->[0]{body}, $body, 'body';
        unlike $res->[0]{head}, qr/^Transfer-Encoding:/mi, 'no Transfer-Encoding' if defined $res->[0]{body} && $path !~ /te/;
        if ($alive) {
            is scalar @$res, 2, 'the connection serves the pipelined request';
            is $res->[1]{body}, 'next', 'its answer';
        } else {
            is scalar @$res, 1, 'the connection ends after it';
            like $res->[0]{head}, qr/\r\nConnection: close(?:\r\n|\z)/, 'saying so' unless $path =~ /^\/stream/;
        }
        is $rest, '', 'nothing else on the wire';
        is $how, 'eof', 'then closed';
        $check->($res->[0]) if $check;
        if ($log) {
            ok eventually(sub { $server->log =~ m{\]: GET \Q$path\E HTTP/1\.1: .*$log} }), "logged: $log";
        }
    };
}
unlike $server->log, qr/GET \/(?:cl-match|cl-two-same|conn-|status-string|status-999|204|304|stream-match|te-chunked|stream-te)\b(?!-)/,
    'no log line for a response that was fine';
done_testing;
