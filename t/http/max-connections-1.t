# --max-connections 1, the low end of its range: a worker holds one
# connection at a time, and takes the next once it is closed, for as many
# connections as come one after another (0 used to be accepted and stop
# the worker accepting after its first connection).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(args => ['--max-connections', 1],
    app => 'sub { [200, ["Content-Type" => "text/plain"], [$_[0]{PATH_INFO}]] }');

for my $n (1 .. 5) {
    my $c = $server->connect;
    print $c "GET /k$n HTTP/1.1\r\nHost: x\r\n\r\nGET /c$n HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    my $buffer = '';
    my $first = read_response($c, buffer => \$buffer);
    is $first && $first->{body}, "/k$n", "connection $n: a keep-alive request answered";
    my $second = read_response($c, buffer => \$buffer);
    is $second && $second->{body}, "/c$n", "connection $n: and the next one on it";
    close $c;
}
is $server->stop, 0, 'stops cleanly';
done_testing;
