# psgix.harakiri.commit makes the worker exit after its response: that
# response says Connection: close, the connection closes, and with one
# worker the next request (on a new connection) is served by a different
# pid, at once. Also when a cleanup handler sets it (the response is gone
# by then, so it cannot say close, but the connection still closes). The
# old worker exits.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response);

my $server = start_server(workers => 1, app => <<'APP');
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    $env->{'psgix.harakiri.commit'} = 1 if $p eq '/harakiri';
    push @{ $env->{'psgix.cleanup.handlers'} }, sub { $_[0]{'psgix.harakiri.commit'} = 1 } if $p eq '/harakiri-cleanup';
    [200, ['Content-Type' => 'text/plain'], ["$$ " . ($env->{'psgix.harakiri'} ? 'h' : '-')]];
}
APP

sub ask {
    my ($path) = @_;
    my $c = $server->connect;
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    return (read_response($c), $c);
}

my ($res) = ask('/');
my ($pid, $flag) = split / /, $res->{body};
is $flag, 'h', 'psgix.harakiri is advertised';

for my $path ('/harakiri', '/harakiri-cleanup') {
    subtest $path => sub {
        my $c = $server->connect;
        syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
        my ($got, $how) = read_until_close($c);
        my $res = parse_response($got);
        is $res && $res->{body}, "$pid h", 'answered by the current worker';
        if ($path eq '/harakiri') {
            is $res->{headers}{connection}, 'close', 'with Connection: close';
        } else {
            # the response left before the handler decided: it could not say close
            pass 'the response was sent before the cleanup handler ran';
        }
        is $how, 'eof', 'and the connection closed';
        my ($next) = ask('/');
        my ($new) = split / /, ($next && $next->{body}) // '';
        like $new, qr/^\d+$/, 'the next request is served';
        isnt $new, $pid, 'by a new worker';
        my $deadline = Time::HiRes::time() + 10;
        Time::HiRes::sleep(0.01) while kill(0, $pid) && Time::HiRes::time() < $deadline;
        ok !kill(0, $pid), 'the old worker has exited';
        $pid = $new;
    };
}
unlike $server->log, qr{exited with|worker failed}, 'workers that commit harakiri exit cleanly';
done_testing;
