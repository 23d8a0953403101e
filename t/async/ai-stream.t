# examples/ai-stream.psgi in front of bench/ai-streams/upstream.psgi, both
# under kamado --async: an answer relayed token by token, whole; a client
# that leaves mid-answer has its upstream call cancelled within one second
# (the upstream, itself a stream, logs when its client, the proxy, left);
# the fast route answers meanwhile. In a blocking worker it answers too,
# one stream at a time.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);

my $upstream = start_server(app_file => 'bench/ai-streams/upstream.psgi', args => ['--async'], workers => 1);
local $ENV{AI_UPSTREAM} = 'http://127.0.0.1:' . $upstream->port . '/v1/stream';
my $proxy = start_server(app_file => 'examples/ai-stream.psgi', args => ['--async'], workers => 1);

my $res = read_response($proxy->send_get('/ai/stream?tokens=10&interval=0.02'), timeout => 20);
is $res->{status}, 200, 'the answer streams';
is $res->{headers}{'content-type'}, 'text/event-stream', 'as server-sent events';
my @tokens = $res->{body} =~ /^data: (.*)$/mg;
is scalar @tokens, 11, 'every token relayed, and the end';
is $tokens[-1], '[DONE]', 'the end last';

# a client that leaves after a few tokens of a long answer
my $sock = $proxy->send_get('/ai/stream?tokens=1000&interval=0.05');
my $got = '';
sysread $sock, $got, 4096, length $got until ($got =~ s/data: /data: /g) >= 3;
my $left = Time::HiRes::time();
my $fast = read_response($proxy->send_get('/'));
is $fast->{body}, "fast\n", 'the fast route answers while it streams';
close $sock;
ok eventually(sub { $upstream->log =~ /cancelled after (\d+) tokens/ }, 10), 'the upstream call was cancelled';
my $cancelled = Time::HiRes::time();
my ($n) = $upstream->log =~ /cancelled after (\d+) tokens/;
cmp_ok $cancelled - $left, '<', 1, sprintf 'within one second of the client leaving (%.3f s)', $cancelled - $left;
cmp_ok $n, '<', 100, "after $n of 1000 tokens";

# in a blocking worker (as on Starman): the answer holds the worker until
# it ends, and comes whole
my $blocking = start_server(app_file => 'examples/ai-stream.psgi', workers => 1);
my $slow = read_response($blocking->send_get('/ai/stream?tokens=5&interval=0.02'), timeout => 20);
is $slow->{status}, 200, 'in a blocking worker, the answer streams';
my @slow = $slow->{body} =~ /^data: (.*)$/mg;
is_deeply \@slow, [qw(the server keeps every stream), '[DONE]'], 'every token relayed, and the end';

is $blocking->stop, 0, 'the blocking server stops';
is $proxy->stop, 0, 'the proxy stops';
is $upstream->stop, 0, 'the upstream stops';
unlike $proxy->log . $upstream->log . $blocking->log, qr/\[error\]/, 'no error logged';

done_testing;
