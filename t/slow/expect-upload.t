# Uploads sent after Expect: 100-continue cost a descriptor, not a worker:
# the event loop answers 100 Continue itself and holds the body until it is
# all in, and only then does the app run. Here three uploads trickle at
# 600 bytes a second (above --min-body-rate) into a one-worker server while
# a plain GET comes: it is answered at once (a worker reading the uploads
# would keep it waiting for seconds), and each upload reaches the app
# intact. The latency bound is loose (2 s): the point is "not blocked".
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use IO::Select ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 1, args => ['--min-body-rate', 500], app => <<'APP');
use Digest::MD5 ();
sub {
    my $env = shift;
    return [200, ['Content-Type' => 'text/plain'], ['hello']] if $env->{REQUEST_METHOD} eq 'GET';
    my $in = $env->{'psgi.input'};
    my $body = do { local $/; <$in> } // '';
    [200, ['Content-Type' => 'text/plain'],
     [length($body) . ' ' . Digest::MD5::md5_hex($body) . ' expect=' . ($env->{HTTP_EXPECT} // '-')]];
}
APP

my $N = 3;
my $LENGTH = 3000;                 # 5 s at 600 bytes a second
my ($PIECE, $EVERY) = (60, 0.1);
my @up;
for my $i (1 .. $N) {
    my $c = $server->connect;
    $c->blocking(0);
    my $body = join '', map { chr(65 + ($i * 7 + $_) % 26) } 1 .. $LENGTH;
    syswrite $c, "POST /up$i HTTP/1.1\r\nHost: x\r\nContent-Length: $LENGTH\r\nExpect: 100-continue\r\n\r\n";
    # like curl, a client that hears no 100 within a second sends anyway
    push @up, { c => $c, body => $body, sent => 0, in => '', start => Time::HiRes::time() + 1 };
}

my ($get, $get_sent, $get_took, $get_res, $done_at_get);
my $t0 = Time::HiRes::time();
while (Time::HiRes::time() - $t0 < 20) {
    my $now = Time::HiRes::time();
    for my $u (@up) {
        sysread $u->{c}, $u->{in}, 65536, length $u->{in};
        if ($u->{in} =~ s/\AHTTP\/1\.1 100 Continue\r\n\r\n//) {
            $u->{continued} = 1;
            $u->{start} = $now;
        }
        next if $u->{sent} >= $LENGTH || $now < $u->{start} || $now < ($u->{next} // 0);
        $u->{sent} += syswrite($u->{c}, substr($u->{body}, $u->{sent}, $PIECE)) // 0;
        $u->{next} = $now + $EVERY;
    }
    # a normal request once the uploads are under way
    if (!$get && $now - $t0 > 1.5) {
        $get = $server->send_get('/');
        $get->blocking(0);
        $get_sent = $now;
    }
    if ($get && !defined $get_took) {
        sysread $get, $get_res, 65536, length($get_res // '');
        if (($get_res // '') =~ /\r\n\r\nhello\z/) {
            $get_took = $now - $get_sent;
            $done_at_get = grep { $_->{sent} >= $LENGTH } @up;
        }
    }
    last if defined $get_took && !grep { $_->{in} !~ /\r\n\r\n\d+ \w+ expect=/ } @up;
    Time::HiRes::sleep(0.01);
}

ok defined $get_took, 'a GET during the uploads is answered';
cmp_ok $get_took // 99, '<', 2, sprintf 'promptly: %.3f s, the uploads still trickling', $get_took // 99;
is $done_at_get, 0, 'while no upload had been sent whole';
for my $i (1 .. $N) {
    my $u = $up[$i - 1];
    ok $u->{continued}, "upload $i: 100 Continue before its body";
    my ($got) = $u->{in} =~ /\r\n\r\n(.*)\z/s;
    is $got, "$LENGTH " . md5_hex($u->{body}) . ' expect=-', "upload $i: its body reached the app intact (and no Expect)";
}
done_testing;
