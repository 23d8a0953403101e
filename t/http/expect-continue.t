# Expect: 100-continue: the server answers "HTTP/1.1 100 Continue" before
# reading the body; the client sends the body only then and gets the final
# response, on a connection that goes on. No 100 for a request without a
# body or for HTTP/1.0 (which has no 100-continue). The server has answered
# the expectation: the app does not see it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $in = do { local $/; my $fh = $env->{'psgi.input'}; <$fh> } // '';
    [200, ['Content-Type' => 'text/plain'], ["$env->{PATH_INFO} got [$in] expect=" . ($env->{HTTP_EXPECT} // '-')]];
}
APP

# reads exactly the interim response, or whatever arrives within $timeout
sub read_interim {
    my ($c, $timeout) = @_;
    my $want = "HTTP/1.1 100 Continue\r\n\r\n";
    my $buf = '';
    vec(my $rin = '', fileno $c, 1) = 1;
    while (length $buf < length $want && select(my $r = $rin, undef, undef, $timeout)) {
        sysread($c, $buf, length($want) - length $buf, length $buf) or last;
    }
    return $buf;
}

my $c = $server->connect;
my $buf = '';
syswrite $c, "POST /cl HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n";
is read_interim($c, 5), "HTTP/1.1 100 Continue\r\n\r\n", 'Content-Length body: 100 Continue, exactly, before the body is sent';
syswrite $c, 'hello world';
my $res = read_response($c, buffer => \$buf);
is $res && $res->{status}, 200, 'then the final response';
is $res->{body}, '/cl got [hello world] expect=-', 'with the body sent after the 100 (and no Expect left for the app)';

syswrite $c, "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nExpect: 100-Continue\r\n\r\n";
is read_interim($c, 5), "HTTP/1.1 100 Continue\r\n\r\n", 'chunked body (any case of 100-continue), same connection: 100 Continue';
syswrite $c, "5\r\nhello\r\n0\r\n\r\n";
$res = read_response($c, buffer => \$buf);
like $res && $res->{body}, qr{^/chunked got \[hello\] }, 'then the final response';

# no body: nothing to continue; the final response comes at once
syswrite $c, "GET /nobody HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n";
$res = read_response($c, buffer => \$buf);
is $res && $res->{status}, 200, 'a request without a body: the final response directly, no 100';
like $res->{body}, qr{^/nobody got \[\]}, 'its body';

# a client that does not wait for the 100: whatever the server does, the
# final response must be right
syswrite $c, "POST /eager HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello";
$res = read_response($c, buffer => \$buf);
$res = read_response($c, buffer => \$buf) if $res && $res->{status} == 100;
like $res && $res->{body}, qr{^/eager got \[hello\]}, 'a client that sends the body at once: the right final response';
is $buf, '', 'nothing extra';

# HTTP/1.0: no interim responses; the client sends its body after a while
my $c10 = $server->connect;
syswrite $c10, "POST /ten HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n";
syswrite $c10, 'hello';
my $first = read_interim($c10, 5);
like $first, qr{\AHTTP/1\.1 200 }, 'HTTP/1.0: no 100 Continue, the final response';
done_testing;
