# What the server itself needs to serve a request is loaded before the
# workers fork, where its pages are shared, not in each worker at its
# first request (each worker's own copy is private memory): served twice,
# an app that reports the modules loaded after it sees none.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 1, app => <<'APP');
my %at_load = map { $_ => 1 } keys %INC;
sub { [200, ['Content-Type' => 'text/plain'], [join ' ', 'loaded:', grep { !$at_load{$_} } sort keys %INC]] }
APP
my $c = $server->connect;
for my $n (1, 2) {
    syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{body}, 'loaded:', "request $n: no module loaded in the worker";
}
done_testing;
