# Strict framing (request smuggling defences): each malformed request gets
# its status and a closed connection, and a request pipelined behind it is
# never processed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server raw_request);

my $dir = tempdir(CLEANUP => 1);
# every request that reaches the app leaves a line in the hit log
my $server = start_server(app => <<"APP");
sub {
    my \$env = shift;
    open my \$fh, '>>', '$dir/hits' or die \$!;
    print \$fh "\$env->{REQUEST_METHOD} \$env->{PATH_INFO}\\n";
    close \$fh;
    [200, ['Content-Type' => 'text/plain'], ['ok']];
}
APP

sub hits { open my $fh, '<', "$dir/hits" or return ''; local $/; <$fh> // '' }

my $H = "Host: x\r\n";
my @cases = (
    ['TE with CL',                     "POST /a HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
    ['CL with TE',                     "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400],
    ['two CL, equal',                  "POST /a HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400],
    ['two CL, different',              "POST /a HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400],
    ['CL list',                        "POST /a HTTP/1.1\r\n${H}Content-Length: 3, 3\r\n\r\nabc", 400],
    ['CL signed',                      "POST /a HTTP/1.1\r\n${H}Content-Length: +3\r\n\r\nabc", 400],
    ['CL negative',                    "POST /a HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n", 400],
    ['CL letters',                     "POST /a HTTP/1.1\r\n${H}Content-Length: abc\r\n\r\n", 400],
    ['CL overflow',                    "POST /a HTTP/1.1\r\n${H}Content-Length: 99999999999999999999\r\n\r\n", 400],
    ['TE gzip',                        "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: gzip\r\n\r\n", 400],   # not ending in chunked (RFC 9112 6.3)
    ['TE chunked, identity',           "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked, identity\r\n\r\n", 400],
    ['TE gzip, chunked',               "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: gzip, chunked\r\n\r\n", 501],
    ['TE twice',                       "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
    ['TE in HTTP/1.0',                 "POST /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
    ['bad chunk size',                 "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400],
    ['chunk without CRLF after data',  "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", 400],
    ['chunk size overflow',            "POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n", 400],
    ['obs-fold',                       "GET /a HTTP/1.1\r\n${H}X-A: 1\r\n  folded\r\n\r\n", 400],
    ['bare CR in a value',             "GET /a HTTP/1.1\r\n${H}X-A: 1\rX-B: 2\r\n\r\n", 400],
    ['bare LF line end',               "GET /a HTTP/1.1\n${H}\r\n", 400],
    ['NUL in a value',                 "GET /a HTTP/1.1\r\n${H}X-A: a\0b\r\n\r\n", 400],
    ['space before colon',             "GET /a HTTP/1.1\r\n${H}X-A : 1\r\n\r\n", 400],
    ['HTTP/1.1 without Host',          "GET /a HTTP/1.1\r\nX-A: 1\r\n\r\n", 400],
    ['two Host',                       "GET /a HTTP/1.1\r\n${H}${H}\r\n", 400],
    ['HTTP/2.0',                       "GET /a HTTP/2.0\r\n${H}\r\n", 505],
    ['lowercase version',              "GET /a http/1.1\r\n${H}\r\n", 400],
    ['Expect: something else',         "POST /a HTTP/1.1\r\n${H}Expect: 200-ok\r\nContent-Length: 1\r\n\r\nx", 417],
    ['request line too long',          "GET /" . ('a' x 9000) . " HTTP/1.1\r\n${H}\r\n", 414],
    ['head too large',                 "GET /a HTTP/1.1\r\n${H}" . ("X-Long: " . ('b' x 1000) . "\r\n") x 70 . "\r\n", 431],
    ['too many fields',                "GET /a HTTP/1.1\r\n${H}" . join('', map { "X-$_: 1\r\n" } 1 .. 101) . "\r\n", 431],
);

for my $case (@cases) {
    my ($name, $bytes, $status) = @$case;
    my $before = hits();
    # a valid request pipelined behind the bad one must never run
    my $got = raw_request($server, $bytes . "GET /smuggled HTTP/1.1\r\n${H}\r\n");
    like $got, qr{\AHTTP/1\.1 $status }, "$name: $status";
    like $got, qr{\r\nConnection: close\r\n}, "$name: says Connection: close";
    is scalar(() = $got =~ m{^HTTP/1\.1 }mg), 1, "$name: one response, then the connection closed";
    is hits(), $before, "$name: nothing reached the app";
}

# and a valid request still works afterwards
my $ok = raw_request($server, "GET /fine HTTP/1.1\r\n${H}Connection: close\r\n\r\n");
like $ok, qr{\AHTTP/1\.1 200 OK\r\n}, 'a valid request is served';
like hits(), qr{^GET /fine$}m, 'and reaches the app';
unlike hits(), qr{smuggled}, 'no smuggled request ever ran';
done_testing;
