# A request without a body gets an empty psgi.input, one handle the
# worker reuses; an app that closes it does not leave the next request a
# closed one: that one gets an open, empty handle again.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $in = $env->{'psgi.input'};
    my $open = defined fileno $in ? 'open' : 'closed';
    my $n = $in->read(my $buf, 10);
    close $in if $env->{PATH_INFO} eq '/close';
    [200, ['Content-Type' => 'text/plain'], ["$open " . ($n // 'undef') . " [$buf]"]];
}
APP

my $c = $server->connect;
for my $path ('/', '/close', '/after', '/again') {
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, timeout => 10);
    is $res && $res->{body}, 'open 0 []', "$path: psgi.input is open and empty";
}

done_testing;
