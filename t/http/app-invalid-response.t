# An app that returns something that is not a valid PSGI response gets a
# 500 (nothing of the bad response is sent, no header is injected) and a
# log line with the request line; the connection and the worker stay
# usable. Covers: a string, undef, a header value with LF or CRLF, a bad
# header name, a bad status, an odd header list, the wrong number of
# elements, a body that is a plain string, a body with wide characters.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::Log qw($PREFIX);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(read_until_close parse_response);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/invalid response from the app|app returned an invalid response|app died: returned undef/);

my $server = start_server(app => <<'APP');
my %bad = (
    '/string'      => sub { 'a string' },
    '/undef'       => sub { undef },
    '/lf-value'    => sub { [200, ['X-Bad' => "a\nInjected: 1"], ['x']] },
    '/crlf-value'  => sub { [200, ['X-Bad' => "a\r\nInjected: 1"], ['x']] },
    '/name-space'  => sub { [200, ['X Bad' => 'v'], ['x']] },
    '/name-colon'  => sub { [200, ['Injected: 1' => 'v'], ['x']] },
    '/status-99'   => sub { [99, [], ['x']] },
    '/status-word' => sub { ['OK', [], ['x']] },
    '/odd-headers' => sub { [200, ['Content-Type'], ['x']] },
    '/two-items'   => sub { [200, []] },
    '/hash-headers'=> sub { [200, { 'Content-Type' => 'text/plain' }, ['x']] },
    '/string-body' => sub { [200, ['Content-Type' => 'text/plain'], 'a string body'] },
    '/wide-body'   => sub { [200, ['Content-Type' => 'text/plain'], ["caf\x{e9} \x{263a}"]] },
);
sub {
    my $env = shift;
    my $bad = $bad{ $env->{PATH_INFO} };
    return $bad->() if $bad;
    [200, ['Content-Type' => 'text/plain'], ["pid $$"]];
}
APP

sub ask {
    my ($c, $path) = @_;
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    # read what comes: a well-behaved server answers at once
    my $buf = '';
    my $deadline = time + 15;
    vec(my $rin = '', fileno $c, 1) = 1;
    until (parse_response($buf) || time > $deadline) {
        select(my $r = $rin, undef, undef, 0.5) or next;
        sysread($c, $buf, 65536, length $buf) or last;
    }
    return parse_response($buf) // { status_line => "(no complete response: '$buf')", body => '', head => '', headers => {} };
}

my $c = $server->connect;
my ($pid) = ask($c, '/ok')->{body} =~ /pid (\d+)/;
for my $path (qw(/string /undef /lf-value /crlf-value /name-space /name-colon /status-99 /status-word
                 /odd-headers /two-items /hash-headers /string-body /wide-body)) {
    subtest $path => sub {
        $c = $server->connect unless $c->connected;
        my $res = ask($c, "$path?q=1");
        is $res->{status_line}, 'HTTP/1.1 500 Internal Server Error', 'status 500';
        is $res->{body}, "Internal Server Error\n", 'the generic body';
        unlike $res->{head}, qr/Injected|X-Bad|X Bad/, 'nothing of the bad response';
        like $server->log, qr{^${PREFIX}GET \Q$path\E\?q=1 HTTP/1\.1: }m, 'a log line with the request line';
        my $next = ask($c, '/ok');
        is $next->{body}, "pid $pid", 'the same connection and worker serve the next request';
    };
}
unlike $server->log, qr{exited with|worker failed}, 'no worker died';
done_testing;
