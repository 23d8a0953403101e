# A client that goes away in the middle of a response (a streamed body, a
# large array body, a getline body, a slow stream that goes on writing
# after the close, an abortive close with RST) or in the middle of its
# request body never kills the worker: with one worker, the next request
# is served by the same pid, and the log shows no worker exit.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Socket qw(SOL_SOCKET SO_LINGER);
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(wait_for_file read_until);

my $dir = tempdir(CLEANUP => 1);
$ENV{KT_DIR} = $dir;
my $server = start_server(workers => 1, app => <<'APP');
use Time::HiRes ();
package Big { sub new { bless { n => 0 }, shift } sub getline { $_[0]{n}++ < 200 ? 'g' x 65536 : undef } sub close {} }
my $dir = $ENV{KT_DIR};
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    my $chunk = 'x' x 65536;
    if ($p eq '/pid') {
        my $in = do { local $/; my $fh = $env->{'psgi.input'}; <$fh> } // '';
        return [200, ['Content-Type' => 'text/plain'], ["$$"]];
    }
    return [200, ['Content-Type' => 'text/plain'], [($chunk) x 200]] if $p eq '/array';
    return [200, ['Content-Type' => 'text/plain'], Big->new] if $p eq '/getline';
    if ($p eq '/slow') {
        return sub {
            my $w = shift->([200, ['Content-Type' => 'text/plain']]);
            $w->write('first');
            # go on writing once the client is gone
            my $deadline = Time::HiRes::time() + 5;
            Time::HiRes::sleep(0.005) until -e "$dir/gone" or Time::HiRes::time() > $deadline;
            $w->write($chunk) for 1 .. 50;
            $w->close;
            open my $fh, '>', "$dir/slow-done" or die;
        };
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
    syswrite $c, "GET /pid HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c);
    return $res && $res->{body};
}

my $pid = pid();
like $pid, qr/^\d+$/, 'the worker answers with its pid';

for my $path (qw(/stream /array /getline)) {
    for my $rst (0, 1) {
        my $name = "$path, " . ($rst ? 'reset' : 'close');
        my $c = $server->connect;
        syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
        my $buf = read_until($c, qr{\r\n\r\n});
        like $buf, qr{\AHTTP/1\.1 200 OK\r\n}, "$name: the response started";
        setsockopt $c, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0) if $rst;    # close sends RST
        close $c;
        is pid(), $pid, "$name: the same worker serves the next request";
    }
}

{
    my $c = $server->connect;
    syswrite $c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
    like read_until($c, qr/first/), qr/first/, 'a slow stream: the first part arrives';
    close $c;
    open my $fh, '>', "$dir/gone" or die;
    close $fh;
    ok wait_for_file("$dir/slow-done"), 'a stream that goes on after the client left: the app finishes';
    is pid(), $pid, 'and the same worker serves the next request';
}

{
    my $c = $server->connect;
    syswrite $c, "POST /pid HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n" . ('b' x 1000);
    close $c;
    is pid(), $pid, 'a client gone in the middle of its body: the same worker goes on';
}
unlike $server->log, qr{exited with|worker failed}, 'no worker exited';
done_testing;
