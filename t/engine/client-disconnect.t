# A client that goes away in the middle of a response never kills the
# worker: with one worker, the next request is served by the same process.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    return [200, ['Content-Type' => 'text/plain'], ["$$"]] if $env->{PATH_INFO} eq '/pid';
    my $chunk = 'x' x 65536;
    if ($env->{PATH_INFO} eq '/array') {
        return [200, ['Content-Type' => 'text/plain'], [($chunk) x 200]];
    }
    return sub {
        my $w = shift->([200, ['Content-Type' => 'text/plain']]);
        $w->write($chunk) for 1 .. 200;
        $w->close;
    };
}
APP

sub pid {
    my $c = $server->connect;
    print $c "GET /pid HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    return $res && $res->{body};
}

my $pid = pid();
like $pid, qr/^\d+$/, 'the worker answers';
for my $path (qw(/stream /array)) {
    my $c = $server->connect;
    print $c "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    sysread $c, my $buf, 1000;               # the response has started
    like $buf, qr{^HTTP/1\.1 200}, "$path: the response started";
    close $c;                                # and the client is gone
    is pid(), $pid, "$path: the same worker serves the next request";
}
unlike $server->log, qr/exited with/, 'no worker exited';
done_testing;
