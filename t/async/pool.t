# --pool ai:/ai/,async,streams=2: the pool's worker serves two streams at
# once and no more: a third request waits (its head does not come) until
# one ends, then is served. The default pool stays blocking. Open streams
# are in /metrics (kamado_open_streams) and on the status page.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use HTTP::Tiny;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Plackup qw(free_port);

my $APP = <<'APP';
use AnyEvent;
sub {
    my ($env) = @_;
    my $nb = $env->{'psgi.nonblocking'} ? 1 : 0;
    return [200, ['Content-Type' => 'text/plain'], ["nonblocking=$nb\n"]] if $env->{PATH_INFO} !~ m{^/ai/hold/(\d+)};
    my $id = $1;
    my $dir = $ENV{HOLD_DIR};
    return sub {
        my ($r) = @_;
        my $w = $r->([200, ['Content-Type' => 'text/event-stream']]);
        $w->write("data: started $id\n\n");
        # until the test creates $dir/$id
        my $t; $t = AE::timer 0.05, 0.05, sub {
            return unless -e "$dir/$id";
            undef $t;
            $w->write("data: end $id\n\n");
            $w->close;
        };
    };
}
APP

my $dir = File::Temp->newdir;
local $ENV{HOLD_DIR} = "$dir";
my $status_port = free_port();
my $server = start_server(app => $APP, workers => 1,
    args => ['--pool', 'ai:/ai/,async,streams=2', '--status-listen', "127.0.0.1:$status_port"]);

is read_response($server->send_get('/'))->{body}, "nonblocking=0\n", 'the default pool is blocking';

sub started {
    my ($sock, $timeout) = @_;
    my $buf = '';
    my $deadline = Time::HiRes::time() + $timeout;
    while ($buf !~ /data: started/ && (my $left = $deadline - Time::HiRes::time()) > 0) {
        vec(my $rin = '', fileno $sock, 1) = 1;
        last unless select $rin, undef, undef, $left;
        sysread $sock, $buf, 4096, length $buf or last;
    }
    return $buf =~ /data: started (\d+)/ ? $1 : undef;
}

my @socks = map { $server->send_get("/ai/hold/$_") } 1 .. 2;
is started($socks[0], 10), 1, 'the first stream started';
is started($socks[1], 10), 2, 'the second too, in the same worker';
my $third = $server->send_get('/ai/hold/3');
is started($third, 1), undef, 'the third waits: streams=2';

my $http = HTTP::Tiny->new(timeout => 10);
my $metrics = '';
ok eventually(sub { ($metrics = $http->get("http://127.0.0.1:$status_port/metrics")->{content} // '')
        =~ /^kamado_open_streams\{pool="ai"\} 2$/m }), 'two open streams in /metrics'
    or diag $metrics;
like $http->get("http://127.0.0.1:$status_port/")->{content}, qr/<th>Streams<\/th>/, 'and a column on the status page';

open my $fh, '>', "$dir/1" or die $!;
close $fh;
my $rest = Kamado::Test::read_all($socks[0], 10);
like $rest, qr/data: end 1/, 'the first stream ended';
is started($third, 10), 3, 'then the third started';
for my $id (2, 3) {
    open my $fh, '>', "$dir/$id" or die $!;
}
like Kamado::Test::read_all($_, 10), qr/data: end/, 'and ended' for $socks[1], $third;
is $server->stop, 0, 'the server stops';
unlike $server->log, qr/\[error\]/, 'no error logged';

done_testing;
