# Request headers in %env: HTTP_* with dashes as underscores, repeated
# fields joined with ", ", Content-Type and Content-Length without the
# HTTP_ prefix; a header whose name has an underscore is dropped, so
# "X_Forwarded_For" can never pose as X-Forwarded-For. PATH_INFO is
# percent-decoded, REQUEST_URI and QUERY_STRING are as sent.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my @keys = sort grep { /^(?:HTTP_|CONTENT_|PATH_INFO$|REQUEST_URI$|QUERY_STRING$|REQUEST_METHOD$|SERVER_PROTOCOL$)/ } keys %$env;
    [200, ['Content-Type' => 'text/plain'], [join '', map { "$_=$env->{$_}\n" } @keys]];
}
APP

my $c = $server->connect;
syswrite $c, "POST /a%20b/c%2Fd?x=%20y&z HTTP/1.1\r\nHost: example\r\nX-Forwarded-For: 10.0.0.1\r\n"
    . "X_Forwarded_For: 6.6.6.6\r\nx_real_ip: 6.6.6.6\r\nAccept: a\r\naccept: b\r\nX-Empty:\r\n"
    . "Content-Type: text/plain\r\nContent-Length: 3\r\nX-Spaces:   padded value  \r\n\r\nabc";
my $res = read_response($c);
is $res && $res->{status}, 200, 'served';
is $res->{body}, join('', map { "$_\n" }
    'CONTENT_LENGTH=3',
    'CONTENT_TYPE=text/plain',
    'HTTP_ACCEPT=a, b',
    'HTTP_HOST=example',
    'HTTP_X_EMPTY=',
    'HTTP_X_FORWARDED_FOR=10.0.0.1',
    'HTTP_X_SPACES=padded value',
    'PATH_INFO=/a b/c/d',
    'QUERY_STRING=x=%20y&z',
    'REQUEST_METHOD=POST',
    'REQUEST_URI=/a%20b/c%2Fd?x=%20y&z',
    'SERVER_PROTOCOL=HTTP/1.1',
), 'exactly these keys and values: underscored names dropped, repeats joined, OWS trimmed';
done_testing;
