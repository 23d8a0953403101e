#!/usr/bin/perl
# Writes the HTTP/1.1 conformance corpus: NAME.http (the exact request
# bytes) and NAME.expect (what must happen) for every case below, after
# removing the old ones. The committed files are what t/http/corpus.t
# runs; this script is only the convenient way to write them. See README.
#
#   perl t/corpus/generate.pl            (from the repository root)
use strict;
use warnings;
use File::Basename qw(dirname);

my $DIR = dirname(__FILE__);
my (@CASES, %SEEN);

# expectation values: bytes outside printable ASCII, a backslash, and a
# trailing space are written \xNN (t/corpus/README)
sub x {
    my ($s) = @_;
    $s =~ s/([^\x20-\x5b\x5d-\x7e])/sprintf '\\x%02x', ord $1/ge;
    $s =~ s/ \z/\\x20/;
    return $s;
}
sub env { my ($k, $v, $n) = @_; ($n ? "$n." : '') . "env.$k: " . x($v) }
sub body { my ($v, $n) = @_; ($n ? "$n." : '') . 'body: ' . x($v) }

sub case {
    my ($name, $bytes, @lines) = @_;
    die "duplicate case $name\n" if $SEEN{$name}++;
    die "bad name $name\n" unless $name =~ /\A[a-z0-9][a-z0-9.-]*\z/;
    push @CASES, [$name, $bytes, \@lines];
}
# rejected: one error response, connection closed, the app never runs
sub bad { my ($name, $bytes, $status, @more) = @_; case($name, $bytes, "status: $status", 'connection: close', 'app: no', @more) }
# served, connection kept open (proved with a follow-up request)
sub ok { my ($name, $bytes, @more) = @_; case($name, $bytes, 'status: 200', 'connection: keep-alive', 'app: yes', @more) }
# served, then the connection is closed
sub ok_close { my ($name, $bytes, @more) = @_; case($name, $bytes, 'status: 200', 'connection: close', 'app: yes', @more) }

my $H = "Host: x\r\n";
sub get { my ($target, @h) = @_; "GET $target HTTP/1.1\r\n$H" . join('', map { "$_\r\n" } @h) . "\r\n" }
sub post_cl { my ($path, $body, @h) = @_; "POST $path HTTP/1.1\r\n${H}" . join('', map { "$_\r\n" } @h) . "Content-Length: " . length($body) . "\r\n\r\n$body" }
sub post_te { my ($path, $te, $chunks, @h) = @_; "POST $path HTTP/1.1\r\n${H}" . join('', map { "$_\r\n" } @h) . "Transfer-Encoding: $te\r\n\r\n$chunks" }
my $HELLO = "5\r\nhello\r\n0\r\n\r\n";

# ------------------------------------------------------------------
# valid requests of every method, and the %env they produce

ok('method-get', get('/'),
    env(REQUEST_METHOD => 'GET'), env(PATH_INFO => '/'), env(QUERY_STRING => ''), env(REQUEST_URI => '/'),
    env(SERVER_PROTOCOL => 'HTTP/1.1'), env(HTTP_HOST => 'x'), env(SCRIPT_NAME => ''),
    'absent: CONTENT_LENGTH CONTENT_TYPE', body(''));
ok('method-get-query', get('/a/b?x=1&y=2'),
    env(PATH_INFO => '/a/b'), env(QUERY_STRING => 'x=1&y=2'), env(REQUEST_URI => '/a/b?x=1&y=2'));
ok('method-get-empty-query', get('/a?'), env(PATH_INFO => '/a'), env(QUERY_STRING => ''), env(REQUEST_URI => '/a?'));
ok('method-get-query-with-question-marks', get('/a?b?c=/d'), env(PATH_INFO => '/a'), env(QUERY_STRING => 'b?c=/d'));
ok('method-get-with-body', "GET /g HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\nabc",
    env(REQUEST_METHOD => 'GET'), env(CONTENT_LENGTH => '3'), body('abc'));
case('method-head', "HEAD /h HTTP/1.1\r\n$H\r\n", 'status: 200', 'connection: keep-alive', 'app: yes', 'no_body: 1',
    env(REQUEST_METHOD => 'HEAD'), env(PATH_INFO => '/h'));
ok('method-post-form', post_cl('/form', 'a=1&b=2', 'Content-Type: application/x-www-form-urlencoded'),
    env(REQUEST_METHOD => 'POST'), env(CONTENT_LENGTH => '7'), env(CONTENT_TYPE => 'application/x-www-form-urlencoded'),
    'absent: HTTP_CONTENT_LENGTH HTTP_CONTENT_TYPE', body('a=1&b=2'));
ok('method-post-cl-zero', post_cl('/z', ''), env(CONTENT_LENGTH => '0'), body(''));
ok('method-post-no-length', "POST /n HTTP/1.1\r\n$H\r\n",
    'note: RFC 9112 6.3: a request with neither Content-Length nor Transfer-Encoding has an empty body',
    env(REQUEST_METHOD => 'POST'), body(''));
ok('method-post-binary-body', post_cl('/bin', "a\0b\r\n\xff\x01"), body("a\0b\r\n\xff\x01"), env(CONTENT_LENGTH => '7'));
ok('method-put', post_cl('/r', 'hello') =~ s/^POST/PUT/r, env(REQUEST_METHOD => 'PUT'), body('hello'));
ok('method-patch', post_cl('/r', '{"a":1}', 'Content-Type: application/json') =~ s/^POST/PATCH/r,
    env(REQUEST_METHOD => 'PATCH'), env(CONTENT_TYPE => 'application/json'), body('{"a":1}'));
ok('method-delete', "DELETE /r/1 HTTP/1.1\r\n$H\r\n", env(REQUEST_METHOD => 'DELETE'), env(PATH_INFO => '/r/1'));
ok('method-delete-with-body', post_cl('/r', 'why') =~ s/^POST/DELETE/r, env(REQUEST_METHOD => 'DELETE'), body('why'));
ok('method-options-path', "OPTIONS /o HTTP/1.1\r\n$H\r\n", env(REQUEST_METHOD => 'OPTIONS'), env(PATH_INFO => '/o'));
ok('method-options-asterisk', "OPTIONS * HTTP/1.1\r\n$H\r\n",
    'note: asterisk-form (RFC 9112 3.2.4): the app sees PATH_INFO and REQUEST_URI "*"',
    env(REQUEST_METHOD => 'OPTIONS'), env(REQUEST_URI => '*'), env(PATH_INFO => '*'), env(QUERY_STRING => ''));
ok('method-get-asterisk', "GET * HTTP/1.1\r\n$H\r\n",
    'note: the asterisk-form is meant for OPTIONS only (RFC 9112 3.2.4) but no status is required for other methods;',
    'note: Kamado passes it to the app like OPTIONS *, which decides',
    env(REQUEST_METHOD => 'GET'), env(PATH_INFO => '*'));
ok('method-trace', "TRACE /t HTTP/1.1\r\n$H\r\n", env(REQUEST_METHOD => 'TRACE'));
ok('method-extension', "PURGE /cache HTTP/1.1\r\n$H\r\n", 'note: any token is a method; the app decides what it supports',
    env(REQUEST_METHOD => 'PURGE'));
ok('method-extension-tchars', "M-SEARCH.x_y!~ /s HTTP/1.1\r\n$H\r\n", env(REQUEST_METHOD => 'M-SEARCH.x_y!~'));
ok('method-lowercase', "get /l HTTP/1.1\r\n$H\r\n",
    'note: methods are case-sensitive (RFC 9110 9.1): "get" is a valid token but not GET; it reaches the app',
    'note: as "get" (501 for an unknown method is the origin server\'s SHOULD, i.e. the app\'s)',
    env(REQUEST_METHOD => 'get'));
ok('method-post-chunked', post_te('/c', 'chunked', $HELLO, 'Content-Type: text/plain'),
    'note: the app sees the decoded body with its CONTENT_LENGTH and no Transfer-Encoding',
    env(CONTENT_LENGTH => '5'), env(CONTENT_TYPE => 'text/plain'), 'absent: HTTP_TRANSFER_ENCODING', body('hello'));
ok('method-put-chunked', post_te('/c', 'chunked', "3\r\nabc\r\n4\r\ndefg\r\n1\r\nh\r\n0\r\n\r\n") =~ s/^POST/PUT/r,
    env(REQUEST_METHOD => 'PUT'), env(CONTENT_LENGTH => '8'), body('abcdefgh'));
ok('method-post-chunked-empty', post_te('/c', 'chunked', "0\r\n\r\n"), env(CONTENT_LENGTH => '0'), body(''));
ok('method-post-chunked-large', post_te('/c', 'chunked', sprintf("%x\r\n%s\r\n0\r\n\r\n", 3000, 'q' x 3000)),
    env(CONTENT_LENGTH => '3000'), 'body_length: 3000');

# ------------------------------------------------------------------
# HTTP/1.0 and 1.1 keep-alive defaults, Connection

ok_close('conn-http10-default', "GET /a HTTP/1.0\r\n\r\n",
    'note: HTTP/1.0 closes unless Connection: keep-alive; Host is optional in 1.0',
    env(SERVER_PROTOCOL => 'HTTP/1.0'), 'absent: HTTP_HOST');
ok_close('conn-http10-host', "GET /a HTTP/1.0\r\nHost: h.example\r\n\r\n", env(HTTP_HOST => 'h.example'));
ok('conn-http10-keepalive', "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", env(SERVER_PROTOCOL => 'HTTP/1.0'));
ok('conn-http10-keepalive-case', "GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
ok_close('conn-http10-keepalive-and-close', "GET /a HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n");
ok_close('conn-http10-post', "POST /a HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi", body('hi'));
ok('conn-http11-default', get('/a'));
ok('conn-http11-keepalive', get('/a', 'Connection: keep-alive'));
ok_close('conn-http11-close', get('/a', 'Connection: close'), 'note: RFC 9112 9.6: nothing after it is processed');
ok_close('conn-http11-close-case', get('/a', 'Connection: CLOSE'));
ok_close('conn-http11-close-in-list', get('/a', 'Connection: keep-alive, close'));
ok_close('conn-http11-close-in-list-ows', get('/a', 'Connection: foo ,  Close ,'));
ok_close('conn-http11-close-second-field', get('/a', 'Connection: upgrade', 'Connection: close'));
ok('conn-http11-not-close', get('/a', 'Connection: closed, xclose'), 'note: only the token "close" closes');
ok('conn-http12', "GET /a HTTP/1.2\r\n$H\r\n",
    'note: a higher 1.x minor version is served as HTTP/1.1 (RFC 9110 2.5)');
ok('conn-http19-keepalive', "GET /a HTTP/1.9\r\n$H\r\n");

# ------------------------------------------------------------------
# leading empty lines, pipelining

ok('leading-crlf', "\r\n" . get('/a'), 'note: RFC 9112 2.2: a server SHOULD ignore at least one empty line before the request-line',
    env(PATH_INFO => '/a'));
ok('leading-crlf-twice', "\r\n\r\n" . get('/a'), env(PATH_INFO => '/a'));
bad('leading-lf', "\n" . get('/a'), 400, 'note: a bare LF is not an empty line (RFC 9112 2.2 lets a server reject it)');
bad('leading-space', ' ' . get('/a'), 400);
case('pipeline-two-gets', get('/one') . get('/two'), 'status: 200 200', 'connection: keep-alive', 'app: yes',
    env(PATH_INFO => '/one'), env(PATH_INFO => '/two', 2));
case('pipeline-post-then-get', post_cl('/p', 'hello') . get('/g'), 'status: 200 200', 'connection: keep-alive', 'app: yes',
    body('hello'), env(PATH_INFO => '/g', 2), body('', 2));
case('pipeline-chunked-then-get', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n") . get('/g'),
    'status: 200 200', 'connection: keep-alive', 'app: yes', body('hello'), env(PATH_INFO => '/g', 2));
case('pipeline-head-then-get', "HEAD /h HTTP/1.1\r\n$H\r\n" . get('/g'), 'status: 200 200', 'connection: keep-alive',
    'app: yes', 'no_body: 1', env(REQUEST_METHOD => 'HEAD'), env(REQUEST_METHOD => 'GET', 2));
case('pipeline-get-then-bad', get('/first') . "GET /second HTTP/1.1\r\n${H}X-A : 1\r\n\r\n" . get('/third'),
    'status: 200 400', 'connection: close', 'app: yes', env(PATH_INFO => '/first'),
    'note: the request after the 400 (/third) must never run');
case('pipeline-close-then-get', get('/first', 'Connection: close') . get('/second'), 'status: 200', 'connection: close',
    'app: yes', env(PATH_INFO => '/first'), 'note: /second, after Connection: close, must never run');
case('pipeline-bad-then-get', "GET /bad HTTP/1.1\r\n$H$H\r\n" . get('/never'), 'status: 400', 'connection: close', 'app: no');

# ------------------------------------------------------------------
# request line

bad('rl-method-space', "GE T /a HTTP/1.1\r\n$H\r\n", 400);
bad('rl-method-nul', "G\0ET /a HTTP/1.1\r\n$H\r\n", 400);
bad('rl-method-empty', " /a HTTP/1.1\r\n$H\r\n", 400);
bad('rl-method-at', "G\@T /a HTTP/1.1\r\n$H\r\n", 400);
bad('rl-method-nonascii', "G\xc3\x89T /a HTTP/1.1\r\n$H\r\n", 400);
bad('rl-double-space', "GET  /a HTTP/1.1\r\n$H\r\n", 400);
bad('rl-space-before-version-twice', "GET /a  HTTP/1.1\r\n$H\r\n", 400);
bad('rl-tab-separators', "GET\t/a\tHTTP/1.1\r\n$H\r\n", 400);
bad('rl-target-space', "GET /a b HTTP/1.1\r\n$H\r\n", 400);
bad('rl-target-missing', "GET HTTP/1.1\r\n$H\r\n", 400);
bad('rl-target-nul', "GET /a\0b HTTP/1.1\r\n$H\r\n", 400);
bad('rl-target-ctl', "GET /a\x01b HTTP/1.1\r\n$H\r\n", 400);
bad('rl-target-del', "GET /a\x7fb HTTP/1.1\r\n$H\r\n", 400);
ok('rl-target-nonascii', "GET /caf\xc3\xa9 HTTP/1.1\r\n$H\r\n", env(PATH_INFO => "/caf\xc3\xa9"),
    'note: bytes above 0x7F are not allowed in a request-target (RFC 3986), and RFC 9112 3 says SHOULD 400;',
    'note: Kamado deliberately accepts them: old Japanese mobile clients sent raw Shift_JIS, and the',
    'note: bytes cannot change framing (lib/Kamado.pm, HTTP)');
ok('rl-target-unsafe-chars', "GET /a\"b<c>{d}|\\^` HTTP/1.1\r\n$H\r\n", env(PATH_INFO => "/a\"b<c>{d}|\\^`"),
    'note: " < > { } | \\ ^ ` are not allowed in a request-target (RFC 3986), and RFC 9112 3 says SHOULD 400;',
    'note: Kamado deliberately accepts them: browsers send | ^ raw in paths and more in queries (WHATWG URL)');
bad('rl-target-relative', "GET a/b HTTP/1.1\r\n$H\r\n", 400, 'note: neither origin-form nor absolute-form');
bad('rl-bare-lf', "GET /a HTTP/1.1\n$H\r\n", 400);
bad('rl-bare-cr-end', "GET /a HTTP/1.1\r$H\r\n", 400);
bad('rl-bare-cr-inside', "GET /a\r HTTP/1.1\r\n$H\r\n", 400);
bad('rl-http09', "GET /a\r\n\r\n", 400, 'note: HTTP/0.9 style, no version: not supported');
bad('rl-version-2.0', "GET /a HTTP/2.0\r\n$H\r\n", 505);
bad('rl-version-3.0', "GET /a HTTP/3.0\r\n$H\r\n", 505);
bad('rl-version-0.9', "GET /a HTTP/0.9\r\n$H\r\n", 505);
bad('rl-version-1.10', "GET /a HTTP/1.10\r\n$H\r\n", 400, 'note: HTTP-version is exactly DIGIT "." DIGIT (RFC 9112 2.3)');
bad('rl-version-1', "GET /a HTTP/1\r\n$H\r\n", 400);
bad('rl-version-01.1', "GET /a HTTP/01.1\r\n$H\r\n", 400);
bad('rl-version-lowercase', "GET /a http/1.1\r\n$H\r\n", 400, 'note: HTTP-name is case-sensitive (RFC 9112 2.3)');
bad('rl-version-trailing-space', "GET /a HTTP/1.1 \r\n$H\r\n", 400);
bad('rl-version-trailing-junk', "GET /a HTTP/1.1x\r\n$H\r\n", 400);
bad('rl-version-nul', "GET /a HTTP/1.1\0\r\n$H\r\n", 400);
bad('rl-version-missing-name', "GET /a 1.1\r\n$H\r\n", 400);
bad('rl-whitespace-before-first-field', "GET /a HTTP/1.1\r\n Host: x\r\n\r\n", 400,
    'note: RFC 9112 2.2: whitespace between the start-line and the first field MUST be rejected or consumed');

# limits: the request line counts its CRLF (lib/Kamado.pm LIMITS)
{
    my ($pre, $post) = ('GET /', ' HTTP/1.1');
    my $line = sub { $pre . ($_[1] x ($_[0] - length($pre) - length($post))) . $post };
    ok('limit-request-line-8192', $line->(8190, 'a') . "\r\n$H\r\n",
        'note: the longest request line: 8190 bytes and its CRLF', env(PATH_INFO => '/' . ('a' x (8190 - 14))));
    bad('limit-request-line-8193', $line->(8191, 'b') . "\r\n$H\r\n", 414);
    bad('limit-request-line-12000', $line->(12000, 'c') . "\r\n$H\r\n", 414);
}

# ------------------------------------------------------------------
# request-target forms and percent-encoding

ok('target-absolute-http', "GET http://x/p/q?a=1 HTTP/1.1\r\n$H\r\n",
    env(PATH_INFO => '/p/q'), env(QUERY_STRING => 'a=1'), env(REQUEST_URI => 'http://x/p/q?a=1'));
ok('target-absolute-https', "GET https://x/p HTTP/1.1\r\n$H\r\n", env(PATH_INFO => '/p'));
ok('target-absolute-no-path', "GET http://x HTTP/1.1\r\n$H\r\n", env(PATH_INFO => '/'), env(QUERY_STRING => ''));
ok('target-absolute-no-path-query', "GET http://x?a=1 HTTP/1.1\r\n$H\r\n", env(PATH_INFO => '/'), env(QUERY_STRING => 'a=1'));
ok('target-absolute-port', "GET http://x:8080/p HTTP/1.1\r\nHost: x:8080\r\n\r\n", env(PATH_INFO => '/p'));
ok('target-absolute-scheme-case', "GET HTTP://x/p HTTP/1.1\r\n$H\r\n", 'note: the scheme is case-insensitive (RFC 3986 3.1)',
    env(PATH_INFO => '/p'));
ok('target-absolute-host-differs', "GET http://a.example/p HTTP/1.1\r\nHost: b.example\r\n\r\n",
    'note: RFC 9112 3.2.2: the origin server MUST ignore Host and use the authority of an absolute-form target,',
    'note: so the app must see HTTP_HOST a.example, not the b.example of the Host line',
    env(PATH_INFO => '/p'), env(HTTP_HOST => 'a.example'));
bad('target-absolute-userinfo', "GET http://user:pw\@x/p HTTP/1.1\r\n$H\r\n", 400,
    'note: RFC 9110 4.2.4: a recipient SHOULD treat userinfo in an http(s) URI as an error');
bad('target-absolute-bad-scheme', "GET ftp://x/p HTTP/1.1\r\n$H\r\n", 400);
bad('target-absolute-no-authority', "GET http:///p HTTP/1.1\r\n$H\r\n", 400, 'note: RFC 9110 4.2.1: an http URI with an empty host is invalid');
bad('target-absolute-no-slashes', "GET http:x/p HTTP/1.1\r\n$H\r\n", 400);
bad('target-absolute-scheme-only', "GET http:// HTTP/1.1\r\n$H\r\n", 400);
bad('target-absolute-no-host-header', "GET http://x/p HTTP/1.1\r\n\r\n", 400,
    'note: RFC 9112 3.2: Host is required in HTTP/1.1 even with an absolute-form target');
bad('target-authority-form-connect', "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n", 400,
    'note: Kamado is not a proxy: CONNECT is refused (400; 405 or 501 would do too)');
bad('target-fragment', "GET /a#frag HTTP/1.1\r\n$H\r\n", 400, 'note: a fragment is not part of a request-target (RFC 9112 3.2)');
bad('target-fragment-after-query', "GET /a?b=1#frag HTTP/1.1\r\n$H\r\n", 400);
bad('target-fragment-absolute', "GET http://x#\@evil/p HTTP/1.1\r\n$H\r\n", 400);
ok('pct-encoded-hash', get('/a%23b'), env(PATH_INFO => '/a#b'), env(REQUEST_URI => '/a%23b'));
ok('pct-letters', get('/%41%62c'), env(PATH_INFO => '/Abc'), env(REQUEST_URI => '/%41%62c'));
ok('pct-space', get('/a%20b'), env(PATH_INFO => '/a b'));
ok('pct-slash', get('/a%2Fb%2fc'), 'note: %2F is decoded into PATH_INFO like any escape (PSGI/CGI); REQUEST_URI keeps it',
    env(PATH_INFO => '/a/b/c'), env(REQUEST_URI => '/a%2Fb%2fc'));
ok('pct-lowercase-hex', get('/%7e%7E'), env(PATH_INFO => '/~~'));
ok('pct-utf8', get('/caf%C3%A9'), env(PATH_INFO => "/caf\xc3\xa9"));
ok('pct-high-byte', get('/%FF'), env(PATH_INFO => "/\xff"));
ok('pct-percent', get('/%25zz%2541'), 'note: decoded once: %25 gives a literal %', env(PATH_INFO => '/%zz%41'));
ok('pct-question', get('/a%3Fb?c=d'), env(PATH_INFO => '/a?b'), env(QUERY_STRING => 'c=d'));
ok('pct-plus-is-plus', get('/a+b'), env(PATH_INFO => '/a+b'));
ok('pct-dot-segments', get('/a/../b/./c'), 'note: dot-segments reach the app as sent', env(PATH_INFO => '/a/../b/./c'));
ok('pct-query-raw', get('/q?a=%41&b=%zz&c=%&d=%00&e=%4&f=+'),
    'note: the query is not decoded: invalid escapes there are the app\'s business',
    env(PATH_INFO => '/q'), env(QUERY_STRING => 'a=%41&b=%zz&c=%&d=%00&e=%4&f=+'));
ok('pct-absolute-path', "GET http://x/%41b HTTP/1.1\r\n$H\r\n", env(PATH_INFO => '/Ab'));
bad('pct-invalid-zz', get('/%zz'), 400);
bad('pct-invalid-second-digit', get('/%4g'), 400);
bad('pct-truncated-one-digit', get('/a%4'), 400);
bad('pct-truncated-at-end', get('/a%'), 400);
bad('pct-truncated-before-query', get('/a%?x=1'), 400);
bad('pct-invalid-in-middle', get('/a/%zz/b'), 400);
bad('pct-nul', get('/a%00b'), 400, 'note: %00 would cut PATH_INFO short in any C call the app makes');
bad('pct-nul-at-end', get('/a%00'), 400);
bad('pct-invalid-absolute', "GET http://x/%zz HTTP/1.1\r\n$H\r\n", 400);

# ------------------------------------------------------------------
# header fields

ok('hdr-basic', get('/', 'X-Foo: bar'), env(HTTP_X_FOO => 'bar'));
ok('hdr-no-space', get('/', 'X-Foo:bar'), env(HTTP_X_FOO => 'bar'));
ok('hdr-ows-trimmed', get('/', "X-Foo: \t bar  baz \t "), env(HTTP_X_FOO => 'bar  baz'));
ok('hdr-empty-value', get('/', 'X-Empty:'), env(HTTP_X_EMPTY => ''));
ok('hdr-empty-value-ows', get('/', "X-Empty: \t "), env(HTTP_X_EMPTY => ''));
ok('hdr-tab-inside-value', get('/', "X-Tab: a\tb"), env(HTTP_X_TAB => "a\tb"));
ok('hdr-obs-text-value', get('/', "X-Bytes: caf\xc3\xa9 \x80\xff"), 'note: obs-text (0x80-0xFF) is allowed in values',
    env(HTTP_X_BYTES => "caf\xc3\xa9 \x80\xff"));
ok('hdr-repeated-joined', get('/', 'Accept: a', 'X-Other: 1', 'Accept: b', 'accept: c'),
    'note: repeated fields are joined with ", " (RFC 9110 5.3)', env(HTTP_ACCEPT => 'a, b, c'));
ok('hdr-name-case', get('/', 'x-MiXeD-cAsE: v'), env(HTTP_X_MIXED_CASE => 'v'));
ok('hdr-name-all-tchars', get('/', "X-!#\$%&'*+.^`|~09az: v"), env("HTTP_X_!#\$%&'*+.^`|~09AZ" => 'v'));
ok('hdr-name-long', get('/', ('N' x 300) . ': v'), env('HTTP_' . ('N' x 300) => 'v'));
ok('hdr-underscore-dropped', get('/', 'X_Forwarded_For: 6.6.6.6', 'X-Forwarded-For: 10.0.0.1'),
    'note: a name with "_" is dropped: it would reach the app as HTTP_X_FORWARDED_FOR too',
    env(HTTP_X_FORWARDED_FOR => '10.0.0.1'));
ok('hdr-underscore-only', get('/', 'X_Real_IP: 6.6.6.6'), 'absent: HTTP_X_REAL_IP');
ok('hdr-underscore-content-length', "POST /u HTTP/1.1\r\n${H}Content_Length: 5\r\n\r\n",
    'note: "Content_Length" is not Content-Length: no body, nothing framed by it', 'absent: CONTENT_LENGTH', body(''));
ok('hdr-underscore-transfer-encoding', "POST /u HTTP/1.1\r\n${H}Transfer_Encoding: chunked\r\n\r\n",
    'absent: HTTP_TRANSFER_ENCODING', body(''));
bad('hdr-space-before-colon', get('/', 'X-A : 1'), 400, 'note: RFC 9112 5.1: MUST be 400');
bad('hdr-tab-before-colon', get('/', "X-A\t: 1"), 400);
bad('hdr-host-space-before-colon', "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400);
bad('hdr-space-in-name', get('/', 'X A: 1'), 400);
bad('hdr-at-in-name', get('/', 'X@A: 1'), 400);
bad('hdr-quote-in-name', get('/', 'X"A: 1'), 400);
bad('hdr-paren-in-name', get('/', 'X(A): 1'), 400);
bad('hdr-slash-in-name', get('/', 'X/A: 1'), 400);
bad('hdr-nonascii-name', get('/', "X-\xc3\xa9: 1"), 400);
bad('hdr-empty-name', get('/', ': 1'), 400);
bad('hdr-no-colon', get('/', 'X-A 1'), 400);
bad('hdr-name-only', get('/', 'X-A'), 400);
bad('hdr-nul-name', get('/', "X\0A: 1"), 400);
bad('hdr-nul-value', get('/', "X-A: a\0b"), 400);
bad('hdr-nul-value-alone', get('/', "X-A: \0"), 400);
bad('hdr-nul-line-start', get('/', "\0X-A: 1"), 400);
bad('hdr-ctl-value-soh', get('/', "X-A: a\x01b"), 400);
bad('hdr-ctl-value-esc', get('/', "X-A: \x1b[31m"), 400);
bad('hdr-ctl-value-del', get('/', "X-A: a\x7fb"), 400);
bad('hdr-ctl-value-vt', get('/', "X-A: a\x0bb"), 400);
bad('hdr-ctl-value-ff', get('/', "X-A: a\x0cb"), 400);
bad('hdr-bare-cr-value', get('/', "X-A: 1\rX-B: 2"), 400);
bad('hdr-bare-cr-end', "GET / HTTP/1.1\r\n${H}X-A: 1\r\r\n\r\n", 400);
bad('hdr-bare-lf-between', "GET / HTTP/1.1\r\n${H}X-A: 1\nX-B: 2\r\n\r\n", 400);
bad('hdr-bare-lf-end-of-head', "GET / HTTP/1.1\r\n${H}X-A: 1\r\n\n", 400);
bad('hdr-bare-lf-all', "GET / HTTP/1.1\n${H}" =~ s/\r\n/\n/gr . "\n", 400);
bad('hdr-obs-fold-space', get('/', 'X-A: 1', '  folded'), 400, 'note: RFC 9112 5.2: obs-fold outside message/http: 400 or replaced by SP');
bad('hdr-obs-fold-tab', get('/', 'X-A: 1', "\tfolded"), 400);
bad('hdr-obs-fold-host', "GET / HTTP/1.1\r\nHost:\r\n x\r\n\r\n", 400);

# Host
bad('host-missing-http11', "GET / HTTP/1.1\r\nX-A: 1\r\n\r\n", 400, 'note: RFC 9112 3.2: MUST be 400');
bad('host-missing-http11-post', "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi", 400);
bad('host-duplicate-same', "GET / HTTP/1.1\r\n$H$H\r\n", 400, 'note: RFC 9112 3.2: more than one Host line MUST be 400');
bad('host-duplicate-different', "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
bad('host-duplicate-case', "GET / HTTP/1.1\r\nHost: a\r\nhOST: a\r\n\r\n", 400);
case('host-duplicate-http10', "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 'status: 400', 'connection: close', 'app: no',
    'note: RFC 9112 3.2: any request message with more than one Host line, whatever its version');
ok('host-empty', "GET / HTTP/1.1\r\nHost:\r\n\r\n", 'note: RFC 9110 7.2: an empty Host is what a client sends for a URI without authority',
    env(HTTP_HOST => ''));
ok('host-with-port', "GET / HTTP/1.1\r\nHost: x.example:8080\r\n\r\n", env(HTTP_HOST => 'x.example:8080'));
ok('host-ipv6', "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", env(HTTP_HOST => '[::1]:80'));
ok('host-name-case', "GET / HTTP/1.1\r\nhOsT: x\r\n\r\n", env(HTTP_HOST => 'x'));
bad('host-invalid-space', "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400,
    'note: RFC 9112 3.2: a Host with an invalid field value (not uri-host [":" port]) MUST be 400');
bad('host-invalid-slash', "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, 'note: RFC 9112 3.2: invalid Host value MUST be 400');
bad('host-invalid-userinfo', "GET / HTTP/1.1\r\nHost: user\@a\r\n\r\n", 400, 'note: RFC 9112 3.2: invalid Host value MUST be 400');
bad('host-invalid-list', "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", 400, 'note: RFC 9112 3.2: "a, b" is no uri-host (the space; it reads as two hosts): MUST be 400');

# limits (lib/Kamado.pm LIMITS): the head counts every CRLF; 100 fields
{
    my $head = sub {
        my ($total, $path) = @_;
        my $start = "GET $path HTTP/1.1\r\n$H";
        return $start . 'X-Fill: ' . ('f' x ($total - length($start) - length("X-Fill: \r\n\r\n"))) . "\r\n\r\n";
    };
    die unless length $head->(65536, '/max') == 65536;
    ok('limit-head-65536', $head->(65536, '/max'), 'note: a head of exactly 65536 bytes, every CRLF counted', env(PATH_INFO => '/max'));
    bad('limit-head-65537', $head->(65537, '/over'), 431);
    bad('limit-head-many-long-fields', "GET / HTTP/1.1\r\n$H" . ('X-Long: ' . ('b' x 1000) . "\r\n") x 70 . "\r\n", 431);
    my $fields = sub { my ($n, $path) = @_; "GET $path HTTP/1.1\r\n$H" . join('', map { "X-F$_: $_\r\n" } 1 .. $n - 1) . "\r\n" };
    ok('limit-fields-100', $fields->(100, '/hundred'), 'note: 100 fields, Host included', env(HTTP_X_F99 => '99'));
    bad('limit-fields-101', $fields->(101, '/a'), 431);
    bad('limit-fields-300', $fields->(300, '/b'), 431);
}

# ------------------------------------------------------------------
# Content-Length

ok('cl-leading-zeros', post_cl('/c', 'hello') =~ s/Content-Length: 5/Content-Length: 005/r, body('hello'));
ok('cl-leading-zeros-long', post_cl('/c', 'hello') =~ s/Content-Length: 5/'Content-Length: ' . ('0' x 20) . '5'/er,
    'note: RFC 9110 8.6: Content-Length = 1*DIGIT; 000...05 is a valid 5 (no overflow: the value is small)', body('hello'));
ok('cl-ows', "POST /c HTTP/1.1\r\n${H}Content-Length: \t 5 \t\r\n\r\nhello", 'note: OWS around a field value is not part of it',
    body('hello'), env(CONTENT_LENGTH => '5'));
ok('cl-name-case', "POST /c HTTP/1.1\r\n${H}content-LENGTH: 5\r\n\r\nhello", body('hello'));
case('cl-body-then-pipelined', post_cl('/c', 'hello') . get('/g'), 'status: 200 200', 'connection: keep-alive', 'app: yes',
    body('hello'), env(PATH_INFO => '/g', 2));
bad('cl-duplicate-same', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400,
    'note: RFC 9110 8.6 lets a recipient reject repeated equal values; Kamado does');
bad('cl-duplicate-different', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400,
    'note: RFC 9112 6.3: MUST be 400 and close');
bad('cl-duplicate-zero-and-five', "POST /c HTTP/1.1\r\n${H}Content-Length: 0\r\nContent-Length: 5\r\n\r\nhello", 400);
bad('cl-list-same', "POST /c HTTP/1.1\r\n${H}Content-Length: 5, 5\r\n\r\nhello", 400);
bad('cl-list-different', "POST /c HTTP/1.1\r\n${H}Content-Length: 5, 6\r\n\r\nhello!", 400);
bad('cl-plus', "POST /c HTTP/1.1\r\n${H}Content-Length: +5\r\n\r\nhello", 400);
bad('cl-minus', "POST /c HTTP/1.1\r\n${H}Content-Length: -5\r\n\r\nhello", 400);
bad('cl-minus-zero', "POST /c HTTP/1.1\r\n${H}Content-Length: -0\r\n\r\n", 400);
bad('cl-space-inside', "POST /c HTTP/1.1\r\n${H}Content-Length: 5 5\r\n\r\nhello", 400);
bad('cl-tab-inside', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\t5\r\n\r\nhello", 400);
bad('cl-hex', "POST /c HTTP/1.1\r\n${H}Content-Length: 0x5\r\n\r\nhello", 400);
bad('cl-hex-letter', "POST /c HTTP/1.1\r\n${H}Content-Length: a\r\n\r\n0123456789", 400);
bad('cl-trailing-letter', "POST /c HTTP/1.1\r\n${H}Content-Length: 5a\r\n\r\nhello", 400);
bad('cl-decimal-point', "POST /c HTTP/1.1\r\n${H}Content-Length: 5.0\r\n\r\nhello", 400);
bad('cl-trailing-comma', "POST /c HTTP/1.1\r\n${H}Content-Length: 5,\r\n\r\nhello", 400);
bad('cl-empty', "POST /c HTTP/1.1\r\n${H}Content-Length:\r\n\r\nhello", 400);
bad('cl-overflow', "POST /c HTTP/1.1\r\n${H}Content-Length: 99999999999999999999\r\n\r\nhello", 400);
bad('cl-overflow-int64', "POST /c HTTP/1.1\r\n${H}Content-Length: 18446744073709551621\r\n\r\nhello", 400,
    'note: 2^64 + 5: a parser that wraps around would read 5');
bad('cl-nonascii-digit', "POST /c HTTP/1.1\r\n${H}Content-Length: \xd9\xa5\r\n\r\nhello", 400);

# ------------------------------------------------------------------
# Transfer-Encoding, and TE with CL

ok('te-chunked-uppercase', post_te('/c', 'CHUNKED', $HELLO), 'note: transfer-coding names are case-insensitive (RFC 9112 7)', body('hello'));
ok('te-chunked-mixed-case', post_te('/c', 'Chunked', $HELLO), body('hello'));
ok('te-chunked-trailing-space', post_te('/c', 'chunked ', $HELLO), 'note: trailing OWS is not part of the value: this is "chunked"',
    body('hello'));
ok('te-chunked-trailing-tab', post_te('/c', "chunked\t", $HELLO), body('hello'));
ok('te-chunked-leading-tab', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding:\tchunked\r\n\r\n$HELLO", body('hello'));
ok('te-name-case', "POST /c HTTP/1.1\r\n${H}transfer-ENCODING: chunked\r\n\r\n$HELLO", body('hello'));
ok('te-chunked-empty-list-element', post_te('/c', 'chunked,', $HELLO),
    'note: RFC 9110 5.6.1: a recipient MUST accept and ignore empty list elements: "chunked," is chunked',
    body('hello'));
bad('te-chunked-identity', post_te('/c', 'chunked, identity', $HELLO), 400,
    'note: RFC 9112 6.3: chunked is not the final coding, so the length cannot be determined: MUST be 400 and close');
bad('te-identity', post_te('/c', 'identity', 'hello'), 400,
    'note: RFC 9112 6.3: TE present and chunked not final: MUST be 400 and close (identity is not a coding any more)');
bad('te-gzip', post_te('/c', 'gzip', 'hello'), 400,
    'note: RFC 9112 6.3: TE present and chunked not final: MUST be 400 and close');
bad('te-gzip-chunked', post_te('/c', 'gzip, chunked', $HELLO), 501,
    'note: framing is chunked but gzip is not supported: 501 (RFC 9112 6.1)');
bad('te-chunked-chunked', post_te('/c', 'chunked, chunked', $HELLO), 400,
    'note: chunked twice is forbidden to senders (RFC 9112 6.1)');
bad('te-duplicate-chunked', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n$HELLO", 400);
bad('te-duplicate-gzip-chunked', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n$HELLO", 400,
    'note: the two lines make "gzip, chunked" (RFC 9110 5.3), which would be 501; a repeated TE line is 400 first');
bad('te-duplicate-chunked-identity', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n$HELLO", 400);
bad('te-quoted', post_te('/c', '"chunked"', $HELLO), 400, 'note: RFC 9112 6.3: not chunked, so MUST be 400');
bad('te-vertical-tab', post_te('/c', "\x0bchunked", $HELLO), 400);
bad('te-space-before-colon', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding : chunked\r\n\r\n$HELLO", 400);
bad('te-obs-fold', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding:\r\n chunked\r\n\r\n$HELLO", 400);
bad('te-with-cl', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n$HELLO", 400,
    'note: RFC 9112 6.1: TE with CL may be rejected, and the connection MUST close');
bad('te-with-cl-te-first', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n$HELLO", 400);
bad('te-with-cl-zero', "POST /c HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n$HELLO", 400);
bad('te-uppercase-with-cl', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: CHUNKED\r\n\r\n$HELLO", 400);
bad('te-trailing-space-with-cl', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked \r\n\r\n$HELLO", 400);
bad('te-tab-with-cl', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding:\tchunked\t\r\n\r\n$HELLO", 400);
bad('te-identity-with-cl', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: identity\r\n\r\nhello", 400,
    'note: RFC 9112 6.3: TE present and chunked not final: MUST be 400');
bad('te-chunked-identity-with-cl', "POST /c HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked, identity\r\n\r\n$HELLO", 400);
bad('te-http10', "POST /c HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n$HELLO", 400,
    'note: RFC 9112 6.1: TE in HTTP/1.0 means faulty framing; close after answering');
bad('te-http10-with-cl', "POST /c HTTP/1.0\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello", 400);
bad('te-http10-keepalive', "POST /c HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n$HELLO", 400);

# ------------------------------------------------------------------
# chunked framing

ok('chunk-leading-zeros', post_te('/c', 'chunked', "0005\r\nhello\r\n0000\r\n\r\n"), body('hello'));
ok('chunk-many-leading-zeros', post_te('/c', 'chunked', ('0' x 40) . "5\r\nhello\r\n0\r\n\r\n"),
    'note: leading zeros cannot overflow anything', body('hello'));
ok('chunk-hex-upper', post_te('/c', 'chunked', "A\r\n0123456789\r\n0\r\n\r\n"), body('0123456789'));
ok('chunk-hex-lower', post_te('/c', 'chunked', "a\r\n0123456789\r\n0\r\n\r\n"), body('0123456789'));
ok('chunk-data-with-crlf', post_te('/c', 'chunked', "4\r\n\r\n\r\n\r\n0\r\n\r\n"), 'note: CRLFs inside chunk data are data',
    body("\r\n\r\n"));
ok('chunk-data-nul', post_te('/c', 'chunked', "3\r\na\0b\r\n0\r\n\r\n"), 'note: NUL in a body is fine', body("a\0b"));
ok('chunk-ext-valid', post_te('/c', 'chunked', "5;name=value\r\nhello\r\n0\r\n\r\n"), body('hello'));
ok('chunk-ext-name-only', post_te('/c', 'chunked', "5;name\r\nhello\r\n0\r\n\r\n"), body('hello'));
ok('chunk-ext-quoted', post_te('/c', 'chunked', "5;name=\"quoted; value=x\"\r\nhello\r\n0\r\n\r\n"), body('hello'));
ok('chunk-ext-quoted-escape', post_te('/c', 'chunked', "5;n=\"a\\\"b\"\r\nhello\r\n0\r\n\r\n"), body('hello'));
ok('chunk-ext-bws', post_te('/c', 'chunked', "5 ; name = value\r\nhello\r\n0\r\n\r\n"),
    'note: BWS around ";" and "=" (RFC 9112 7.1.1)', body('hello'));
ok('chunk-ext-several', post_te('/c', 'chunked', "5;a=1;b;c=\"3\"\r\nhello\r\n0\r\n\r\n"), body('hello'));
ok('chunk-ext-on-last-chunk', post_te('/c', 'chunked', "5\r\nhello\r\n0;end=1\r\n\r\n"), body('hello'));
bad('chunk-ext-empty', post_te('/c', 'chunked', "5;\r\nhello\r\n0\r\n\r\n"), 400,
    'note: ";" with no name does not match chunk-ext; RFC 9112 2.2: a message that does not match the grammar SHOULD get 400');
bad('chunk-ext-unterminated-quote', post_te('/c', 'chunked', "5;a=\"b\r\nhello\r\n0\r\n\r\n"), 400,
    'note: an unterminated quoted-string does not match chunk-ext; RFC 9112 2.2: SHOULD be 400');
bad('chunk-ext-bare-lf', post_te('/c', 'chunked', "5;a\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-ext-bare-cr', post_te('/c', 'chunked', "5;a\rb\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-ext-nul', post_te('/c', 'chunked', "5;a\0\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-ext-quoted-lf', post_te('/c', 'chunked', "5;a=\"x\ny\"\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-line-too-long', post_te('/c', 'chunked', '5;a=' . ('e' x 5000) . "\r\nhello\r\n0\r\n\r\n"), 400,
    'note: chunk-size line limit 4096 (lib/Kamado.pm LIMITS)');
bad('chunk-size-overflow', post_te('/c', 'chunked', "fffffffffffffffffff\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-2-64', post_te('/c', 'chunked', "10000000000000005\r\nhello\r\n0\r\n\r\n"), 400,
    'note: 2^64 + 5: a parser that wraps around would read 5');
bad('chunk-size-negative', post_te('/c', 'chunked', "-5\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-0x', post_te('/c', 'chunked', "0x5\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-not-hex', post_te('/c', 'chunked', "g\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-empty', post_te('/c', 'chunked', "\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-leading-space', post_te('/c', 'chunked', " 5\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-trailing-space', post_te('/c', 'chunked', "5 \r\nhello\r\n0\r\n\r\n"), 400,
    'note: BWS is allowed only before ";" (RFC 9112 7.1.1)');
bad('chunk-size-space-inside', post_te('/c', 'chunked', "5 5\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-nul', post_te('/c', 'chunked', "5\0\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-bare-lf', post_te('/c', 'chunked', "5\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-size-bare-cr', post_te('/c', 'chunked', "5\rhello\r\n0\r\n\r\n"), 400);
bad('chunk-data-no-crlf', post_te('/c', 'chunked', "5\r\nhello0\r\n\r\n"), 400);
bad('chunk-data-too-long', post_te('/c', 'chunked', "3\r\nhello\r\n0\r\n\r\n"), 400);
bad('chunk-data-bare-lf', post_te('/c', 'chunked', "5\r\nhello\n0\r\n\r\n"), 400);
bad('chunk-data-bare-cr', post_te('/c', 'chunked', "5\r\nhello\r0\r\n\r\n"), 400);
bad('chunk-last-bare-lf', post_te('/c', 'chunked', "5\r\nhello\r\n0\n\r\n"), 400);
bad('chunk-end-bare-lf', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\n\n"), 400);
bad('chunk-end-bare-cr', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\n\r"), 400);

# trailers: read and dropped, never merged, never framing
ok('trailer-allowed', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\n"),
    'note: trailer fields are discarded (RFC 9110 6.5.1 allows it): the app never sees them',
    body('hello'), 'absent: HTTP_X_CHECKSUM');
ok('trailer-several', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A: 1\r\nX-B: 2\r\nX-A: 3\r\n\r\n"),
    body('hello'), 'absent: HTTP_X_A HTTP_X_B');
ok('trailer-empty-value', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A:\r\n\r\n"), body('hello'));
case('trailer-content-length', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nContent-Length: 50\r\n\r\n") . get('/next'),
    'status: 200 200', 'connection: keep-alive', 'app: yes',
    'note: RFC 9110 6.5.1: Content-Length is not allowed in trailers; it must never change the framing',
    env(CONTENT_LENGTH => '5'), body('hello'), env(PATH_INFO => '/next', 2));
case('trailer-transfer-encoding', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n") . get('/next'),
    'status: 200 200', 'connection: keep-alive', 'app: yes', body('hello'), env(PATH_INFO => '/next', 2));
ok('trailer-host', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nHost: evil\r\n\r\n"),
    'note: a Host trailer must not replace the Host header', env(HTTP_HOST => 'x'), body('hello'));
ok('trailer-connection-close', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nConnection: close\r\n\r\n"),
    'note: a Connection trailer is not a connection option: the connection stays open', body('hello'));
bad('trailer-obs-fold', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A: 1\r\n folded\r\n\r\n"), 400);
bad('trailer-bare-lf', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A: 1\n\r\n"), 400);
bad('trailer-bare-cr', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A: 1\rX-B: 2\r\n\r\n"), 400);
bad('trailer-nul', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A: \0\r\n\r\n"), 400);
bad('trailer-ctl', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A: \x01\r\n\r\n"), 400);
bad('trailer-no-colon', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A 1\r\n\r\n"), 400,
    'note: not a field line; RFC 9112 2.2: a message that does not match the grammar SHOULD get 400');
bad('trailer-space-before-colon', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\nX-A : 1\r\n\r\n"), 400,
    'note: RFC 9112 5.1: whitespace between a field name and the colon MUST be 400 (the trailer section is made of field lines too)');
bad('trailer-too-large', post_te('/c', 'chunked', "5\r\nhello\r\n0\r\n" . ('X-T: ' . ('t' x 1000) . "\r\n") x 9 . "\r\n"), 400,
    'note: trailers limit 8192 bytes (lib/Kamado.pm LIMITS)');

# ------------------------------------------------------------------
# NUL anywhere in the head (fine in a body: see method-post-binary-body, chunk-data-nul)

bad('nul-before-request', "\0" . get('/'), 400);
bad('nul-in-empty-line', "GET / HTTP/1.1\r\n$H\0\r\n", 400);
bad('nul-after-head-cr', "GET / HTTP/1.1\r\n$H\r\0\n", 400);

# ------------------------------------------------------------------
# Expect

ok('expect-100-continue', post_cl('/e', 'hello', 'Expect: 100-continue'),
    'note: the body came with the head: a 100 Continue may or may not be sent', body('hello'));
ok('expect-100-continue-case', post_cl('/e', 'hello', 'Expect: 100-Continue'), body('hello'));
ok('expect-100-continue-chunked', post_te('/e', 'chunked', $HELLO, 'Expect: 100-continue'), body('hello'));
case('expect-100-continue-no-body', get('/e', 'Expect: 100-continue'), 'status: 200', 'connection: keep-alive', 'app: yes',
    'interim: none', 'note: no body, so nothing to continue: no 100');
ok_close('expect-100-continue-http10', "POST /e HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello",
    'note: RFC 9110 10.1.1: a server MUST ignore 100-continue in an HTTP/1.0 request', 'interim: none', body('hello'));
ok_close('expect-other-http10', "POST /e HTTP/1.0\r\nExpect: 200-ok\r\nContent-Length: 5\r\n\r\nhello",
    'note: Expect is an HTTP/1.1 feature: ignored in 1.0 (417 would be allowed too)', body('hello'));
bad('expect-other', post_cl('/e', 'hello', 'Expect: 200-ok'), 417, 'note: RFC 9110 10.1.1: 417 for an expectation not met');
bad('expect-other-get', get('/e', 'Expect: something'), 417);
bad('expect-empty', get('/e', 'Expect:'), 417);
bad('expect-100-continue-with-param', post_cl('/e', 'hello', 'Expect: 100-continue; x=1'), 417);
bad('expect-100-continue-and-other', post_cl('/e', 'hello', 'Expect: 100-continue, foo'), 417);

# ------------------------------------------------------------------
# --max-request-body 1024: 413, from Content-Length at once, from a chunked body once it passes

{
    my @m = ('args: --max-request-body 1024');
    ok('maxbody-cl-1024', post_cl('/m', 'a' x 1024), @m, 'body_length: 1024');
    ok('maxbody-chunked-1024', post_te('/m', 'chunked', "200\r\n" . ('a' x 512) . "\r\n200\r\n" . ('b' x 512) . "\r\n0\r\n\r\n"),
        @m, 'body_length: 1024', env(CONTENT_LENGTH => '1024'));
    ok('maxbody-small', get('/m'), @m);
    bad('maxbody-cl-1025-head-only', "POST /m HTTP/1.1\r\n${H}Content-Length: 1025\r\n\r\n", 413, @m,
        'note: 413 as soon as the head says so, without waiting for the body');
    bad('maxbody-cl-1025', post_cl('/m', 'a' x 1025), 413, @m);
    bad('maxbody-cl-huge-head-only', "POST /m HTTP/1.1\r\n${H}Content-Length: 999999999999\r\n\r\n", 413, @m);
    case('maxbody-cl-1025-expect', "POST /m HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Length: 1025\r\n\r\n",
        'status: 413', 'connection: close', 'app: no', 'interim: none', @m, 'note: 413 instead of 100 Continue');
    bad('maxbody-chunked-1025', post_te('/m', 'chunked', "3e8\r\n" . ('a' x 1000) . "\r\n19\r\n" . ('b' x 25) . "\r\n0\r\n\r\n"),
        413, @m);
    bad('maxbody-chunked-one-big', post_te('/m', 'chunked', "800\r\n" . ('a' x 2048) . "\r\n0\r\n\r\n"), 413, @m);
    bad('maxbody-chunked-many-small', post_te('/m', 'chunked', ("10\r\n" . ('s' x 16) . "\r\n") x 70 . "0\r\n\r\n"), 413, @m);
}

# ------------------------------------------------------------------

unlink glob("$DIR/*.http"), glob("$DIR/*.expect");
for my $c (@CASES) {
    my ($name, $bytes, $lines) = @$c;
    open my $fh, '>:raw', "$DIR/$name.http" or die "$name.http: $!";
    print $fh $bytes;
    close $fh;
    open $fh, '>:raw', "$DIR/$name.expect" or die "$name.expect: $!";
    print $fh map { "$_\n" } @$lines;
    close $fh;
}
printf "%d cases written to %s\n", scalar @CASES, $DIR;
