# --keepalive-timeout: an idle keep-alive connection is closed silently
# once it has been idle that long. --header-timeout: a request head that
# does not arrive whole in time gets 408 and the close. Each waits for the
# server's event (the close, the 408) with a bound, and checks it did not
# come before the timeout.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response hit_server hits);

my $server = hit_server(args => ['--keepalive-timeout', '0.5', '--header-timeout', '0.5']);

subtest 'idle keep-alive connection' => sub {
    my $c = $server->connect;
    my $t0 = Time::HiRes::time();    # the connection goes idle after this
    syswrite $c, "GET /first HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    is $res && $res->{status}, 200, 'a first request';
    my ($got, $how) = read_until_close($c, 5);
    my $idle = Time::HiRes::time() - $t0;
    is $got, '', 'no response, no 408 for an idle connection';
    is $how, 'eof', 'closed';
    cmp_ok $idle, '>=', 0.45, sprintf 'after the keep-alive timeout (%.2f s)', $idle;
};

subtest 'slow request head' => sub {
    my $t0 = Time::HiRes::time();    # the head timer starts after this
    my $c = $server->connect;
    syswrite $c, "GET /slow HTTP/1.1\r\nHo";
    my ($got, $how) = read_until_close($c, 5);
    my $took = Time::HiRes::time() - $t0;
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 408 Request Timeout', 'status 408';
    is $res && $res->{headers}{connection}, 'close', 'with Connection: close';
    is $how, 'eof', 'then closed';
    cmp_ok $took, '>=', 0.45, sprintf 'after the header timeout (%.2f s)', $took;
    unlike hits($server), qr{/slow}, 'the app never ran';
};
done_testing;
