# --expect-to-app leaves Expect: 100-continue to the app, for apps that
# must refuse an upload before the client sends it: the app sees
# HTTP_EXPECT, and answers 417 or 413 without reading psgi.input, so no
# 100 Continue goes out and the client never sends its body. An upload it
# accepts gets its 100 when the app reads. (The default, the server
# answering the 100 itself, is t/slow/expect-upload.t.)
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(args => ['--expect-to-app'], app => <<'APP');
sub {
    my $env = shift;
    my $expect = $env->{HTTP_EXPECT} // '-';
    return [417, ['Content-Type' => 'text/plain'], ["no thanks ($expect)"]] if $env->{PATH_INFO} eq '/refuse';
    return [413, ['Content-Type' => 'text/plain'], ["too big ($expect)"]] if $env->{CONTENT_LENGTH} > 100;
    my $in = $env->{'psgi.input'};
    my $body = do { local $/; <$in> } // '';
    [200, ['Content-Type' => 'text/plain'], ["got [$body] ($expect)"]];
}
APP

# What arrives within $timeout seconds, the connection left open.
sub read_for {
    my ($c, $timeout) = @_;
    my $buf = '';
    vec(my $rin = '', fileno $c, 1) = 1;
    while (select(my $r = $rin, undef, undef, $timeout)) {
        sysread($c, $buf, 65536, length $buf) or last;
        last if $buf =~ /\r\n\r\n.*\)\z/s || $buf eq "HTTP/1.1 100 Continue\r\n\r\n";
    }
    return $buf;
}

for my $case (['/refuse', 10, 417, 'no thanks'], ['/big', 1000, 413, 'too big']) {
    my ($path, $length, $status, $text) = @$case;
    my $c = $server->connect;
    syswrite $c, "POST $path HTTP/1.1\r\nHost: x\r\nContent-Length: $length\r\nExpect: 100-continue\r\n\r\n";
    my $got = read_for($c, 5);
    like $got, qr{\AHTTP/1\.1 $status }, "$path: the app's $status is the first answer, with no 100 Continue before it";
    like $got, qr{\r\n\r\n\Q$text (100-continue)\E\z}, "$path: the app saw Expect and refused before the body";
}

my $c = $server->connect;
syswrite $c, "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n";
is read_for($c, 5), "HTTP/1.1 100 Continue\r\n\r\n", 'an upload the app reads: 100 Continue when it reads';
syswrite $c, 'hello';
my $res = read_response($c);
is $res && $res->{body}, 'got [hello] (100-continue)', 'then its body reaches the app';
done_testing;
