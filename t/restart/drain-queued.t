# A stop serves the requests the server has already received, however long
# it takes (up to --graceful-timeout): requests waiting in a pool's queue,
# requests on keep-alive connections waiting behind a slow one in the same
# worker, and the same through HUP's replacement of a generation. (Before,
# a pool worker stopped taking its queue at once, so 4 of 5 queued /ai/
# requests got no answer; a drain gave up after 3 s; and an idle
# connection whose request had come while the worker was busy was closed
# unread, a reset.) Connections still in the listen backlog at TERM are not
# the server's yet: as with every prefork server, they are refused.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(wait_for_file);

my $dir = File::Temp::tempdir(CLEANUP => 1);
$ENV{KT_DIR} = $dir;
my $app = <<'APP';
use Time::HiRes ();
sub {
    my $env = shift;
    if ($env->{PATH_INFO} =~ m{/slow/(\d+)}) {
        open my $fh, '>', "$ENV{KT_DIR}/started-$1" or die;
        close $fh;
        # the first longer than an idle connection's 1 s of drain grace,
        # the rest together longer than the 3 s the drain used to allow
        # (in steps: the worker's TERM cuts a sleep short)
        my $until = Time::HiRes::time() + ($1 == 1 ? 1.5 : 1.1);
        Time::HiRes::sleep(0.02) while Time::HiRes::time() < $until;
    }
    [200, ['Content-Type' => 'text/plain'], ["done $env->{PATH_INFO}"]];
}
APP

# sends a slow request, and once it is in the app n-1 more: on new
# connections, or (keepalive) on connections that each served a
# request before, so one worker holds them all
sub send_slow {
    my ($server, $prefix, $n, $keepalive) = @_;
    unlink glob "$dir/started-*";
    my @c = map { $server->connect } 1 .. $n;
    if ($keepalive) {
        for my $c (@c) {
            syswrite $c, "GET $prefix/quick HTTP/1.1\r\nHost: x\r\n\r\n";
            read_response($c) or die "no answer to a quick request";
        }
    }
    my $send = sub { syswrite $c[$_ - 1], "GET $prefix/slow/$_ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" };
    $send->() for 1;
    ok wait_for_file("$dir/started-1"), ($prefix || "/") . ": a slow request is in the app";
    $send->() for 2 .. $n;    # while the worker is busy
    return @c;
}

sub all_answered {
    my ($name, @c) = @_;
    my @got = map { my $r = read_response($_, timeout => 20); $r ? "$r->{status} $r->{body}" : 'no answer' } @c;
    my @want = map { my $i = $_; $got[$i - 1] =~ m{^200 done .*/slow/$i$} ? $got[$i - 1] : "200 done .../slow/$i" } 1 .. @c;
    is_deeply \@got, \@want, "$name: all " . scalar(@c) . ' answered';
}

{
    my $server = start_server(workers => 1, args => ['--pool', 'ai:/ai/,workers=1'], app => $app);
    my @c = send_slow($server, '/ai', 5);
    kill TERM => $server->pid;
    all_answered('TERM with 4 requests in the pool queue', @c);
    is $server->wait_exit(20), 0, 'then the server exits 0';
}
{
    my $server = start_server(workers => 1, app => $app);
    my @c = send_slow($server, '', 5, 'keepalive');
    kill TERM => $server->pid;
    all_answered('TERM with 4 keep-alive requests that came while the worker was busy', @c);
    is $server->wait_exit(20), 0, 'then the server exits 0';
}
{
    my $server = start_server(workers => 1, args => ['--pool', 'ai:/ai/,workers=1'], app => $app);
    my @c = send_slow($server, '/ai', 5);
    kill HUP => $server->pid;
    all_answered('HUP with 4 requests in the old generation\'s pool queue', @c);
    my $res = read_response($server->send_get('/ai/after'));
    is $res && $res->{body}, 'done /ai/after', 'the new generation serves the pool';
    is $server->stop, 0, 'TERM: exit 0';
}
done_testing;
