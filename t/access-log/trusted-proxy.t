# Behind a trusted proxy (--trusted-proxy) the access log's client, %h
# and %a, is the one X-Forwarded-For names, as mod_remoteip does for
# Apache's; from an untrusted peer it is the peer, whatever it claims.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines);

my $dir = File::Temp->newdir;
my $app = 'sub { [200, ["Content-Type" => "text/plain"], [$_[0]{REMOTE_ADDR}]] }';
for my $case (['127.0.0.1/32', '203.0.113.7'], ['10.0.0.0/8', '127.0.0.1']) {
    my ($trusted, $want) = @$case;
    my $log = "$dir/access-$want.log";
    my $server = start_server(app => $app,
        args => ['--access-log', $log, '--access-log-format', '%h %a', '--trusted-proxy', $trusted]);
    my $c = $server->connect;
    syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.7\r\nConnection: close\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{body}, $want, "--trusted-proxy $trusted: the app sees $want";
    my @lines = wait_lines($log, 1);
    is $lines[0], "$want $want\n", "  and so does the log";
    is $server->stop, 0, '  the server stops cleanly';
}
done_testing;
