# More keep-alive connections than workers never starve: 100 connections
# on 4 workers are all served, twice, in random order.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use List::Util qw(shuffle);
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 4, app => 'sub { [200, ["Content-Type" => "text/plain"], [$_[0]{PATH_INFO}]] }');
my @conns = map { $server->connect } 1 .. 100;
for my $round (1, 2) {
    my @order = shuffle 0 .. $#conns;
    print { $conns[$_] } "GET /c$_ HTTP/1.1\r\nHost: x\r\n\r\n" for @order;
    my $served = 0;
    for (@order) {
        my $res = read_response($conns[$_], timeout => 10);
        $served++ if $res && $res->{status} == 200 && $res->{body} eq "/c$_";
    }
    is $served, 100, "round $round: all 100 connections served";
}
done_testing;
