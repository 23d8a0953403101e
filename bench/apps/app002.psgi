# Benchmark seed 002: AccessLog middleware (logging to nowhere), a
# Plack::Request query-string parse, and a fixed 4000-byte body of 'x'.
# Intended URL: /foo?foo=bar&bar=baz&baz=hoge&hoge=foo
use strict;
use warnings;
use Plack::Builder;
use Plack::Request;

my $length = 4000;
my $body   = 'x' x $length;

builder {
    enable 'AccessLog', logger => sub { };
    sub {
        my $env    = shift;
        my $req    = Plack::Request->new($env);
        my @params = $req->param('foo');
        [ 200, [ 'Content-Type' => 'text/plain', 'Content-Length' => $length ], [$body] ];
    };
};
