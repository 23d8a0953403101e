# The states the engine writes in its scoreboard slot, driven by hand in
# one process (no fork, no timing): idle in the loop; app from the head;
# reading while the app reads a body, app again once it is read; writing
# from the response head; idle again with one more request and the open
# connections counted; draining once the loop stops accepting.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test ();    # blib
use Kamado::Loop ();
use Kamado::Listener;
use Kamado::Scoreboard;
use IO::Socket::IP;

my $listener = Kamado::Listener->bind('127.0.0.1:0');
my $loop = Kamado::Loop->new([$listener->fd], [$listener->env_template], Kamado::Loop->settings(expect_to_app => 1));
my $board = Kamado::Scoreboard->new(2);
$board->claim(1, 3);
$board->set_pid(1, $$);
sub slot { ($board->slots)[1] }

is slot()->{state}, 'starting', 'claimed: starting';
$loop->scoreboard($board, 1);
is slot()->{state}, 'idle', 'on the loop: idle';
is_deeply [map { $_->{state} } ($board->slots)[0]], ['free'], 'the other slot untouched';

my $client = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $listener->port) or die $!;
$client->autoflush(1);
# Expect, left to the app: the body stays with the client until it reads it
syswrite $client, "POST /up?a=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n";
my ($fd, $env, $kind);
for (1 .. 50) { ($fd, $env, $kind) = $loop->next_request(100) and last }
ok defined $fd, 'a request head';
is slot()->{state}, 'app', 'the head returned: app';
is slot()->{request}, 'POST /up?a=1', 'with its request line';
is slot()->{connections}, 1, 'one connection';
is slot()->{requests}, 0, 'none served yet';
is slot()->{pid}, $$, 'the pid';
is slot()->{generation}, 3, 'the generation';

syswrite $client, 'ab';    # half the body: the read below returns it
my $part = $loop->read_body($fd, 4);
is $part, 'ab', 'part of the body';
is slot()->{state}, 'reading', 'while the body is read: reading';
syswrite $client, 'cd';
is $loop->read_body($fd, 2), 'cd', 'the rest';
is slot()->{state}, 'app', 'the body read: app again';

ok $loop->write_response($fd, 200, ['Content-Type' => 'text/plain'], ['ok']), 'answered';
is slot()->{state}, 'writing', 'the response: writing';
$loop->next_request(0);
is slot()->{state}, 'idle', 'back in the loop: idle';
is slot()->{requests}, 1, 'one request served';
is slot()->{connections}, 1, 'the keep-alive connection counted';
cmp_ok slot()->{seconds}, '<', 5, 'seconds in the state';

$loop->stop_accepting;
is slot()->{state}, 'draining', 'stopped accepting: draining';
$loop->next_request(0);
is slot()->{state}, 'draining', 'and stays so in the loop';
is slot()->{requests}, 1, 'no request counted for it';

close $client;
for (1 .. 50) { last if !$loop->open_connections; $loop->next_request(20) }
is slot()->{connections}, 0, 'the connection closed: 0';
$board->clear(1);
is slot()->{state}, 'free', 'cleared: free';
is slot()->{pid}, 0, 'no pid';
done_testing;
