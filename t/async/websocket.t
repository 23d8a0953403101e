# WebSocket through psgix.io: examples/websocket-chat.psgi under --async,
# three AnyEvent::WebSocket::Client clients chatting (each sees every
# message, and who left); and in a blocking worker, an echo app that takes
# the socket after its 101 and runs the whole session in the app call.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use AnyEvent;
use AnyEvent::WebSocket::Client;
use Kamado::Test qw(start_server read_response);

sub run_until {
    my ($cond, $timeout) = @_;
    my $cv = AE::cv;
    my $t = AE::timer 0, 0.02, sub { $cv->send(1) if $cond->() };
    my $give_up = AE::timer $timeout // 10, 0, sub { $cv->send(0) };
    return $cv->recv;
}

my $chat = start_server(app_file => 'examples/websocket-chat.psgi', args => ['--async'], workers => 1);
my $url = 'ws://127.0.0.1:' . $chat->port . '/chat';
my $client = AnyEvent::WebSocket::Client->new(timeout => 10);
my (@conns, %heard);
for my $i (0 .. 2) {
    my $conn = eval { $client->connect($url)->recv };
    ok $conn, "client $i connected" or diag $@;
    $conns[$i] = $conn or next;
    $conn->on(each_message => sub { push $heard{$i}->@*, $_[1]->decoded_body });
}
ok run_until(sub { @{ $heard{0} // [] } >= 3 }), 'the first client heard all three join';
$conns[1]->send("hello from one");
$conns[2]->send("hello from two");
for my $i (0 .. 2) {
    ok run_until(sub { 2 == grep { /: hello from (one|two)\z/ } @{ $heard{$i} // [] } }), "client $i heard both messages";
}
$conns[2]->close;
ok run_until(sub { grep { /user 3 left/ } @{ $heard{0} // [] } }), 'the others heard who left';
my $page = read_response($chat->send_get('/'));
like $page->{body}, qr/new WebSocket/, 'the page is served by the same worker';
my $plain = read_response($chat->send_get('/chat'));
is $plain->{status}, 400, 'a request without an upgrade gets 400';
$_->close for grep defined, @conns[0, 1];
is $chat->stop, 0, 'the chat server stops';

# a blocking worker: the session runs inside the app call
my $echo = start_server(workers => 1, app => <<'APP');
use Protocol::WebSocket::Frame;
use Protocol::WebSocket::Handshake::Server;
sub {
    my ($env) = @_;
    my $io = $env->{'psgix.io'} or return [200, ['Content-Type' => 'text/plain'], ["plain\n"]];
    my $hs = Protocol::WebSocket::Handshake::Server->new_from_psgi($env);
    $hs->parse('');
    return sub {
        my ($responder) = @_;
        $responder->([101, $hs->res->headers]);
        my $frame = Protocol::WebSocket::Frame->new(version => $hs->version);
        while (sysread $io, my $buf, 4096) {
            $frame->append($buf);
            while (defined(my $m = $frame->next_bytes)) {
                return if $frame->is_close;
                syswrite $io, Protocol::WebSocket::Frame->new("echo: $m")->to_bytes;
            }
        }
    };
}
APP
my $conn = eval { $client->connect('ws://127.0.0.1:' . $echo->port . '/')->recv };
ok $conn, 'connected to a blocking worker' or diag $@;
my @echoed;
$conn->on(each_message => sub { push @echoed, $_[1]->decoded_body }) if $conn;
$conn->send("one") if $conn;
$conn->send("two") if $conn;
ok run_until(sub { @echoed == 2 }), 'the blocking app echoed both';
is_deeply \@echoed, ['echo: one', 'echo: two'], 'in order';
$conn->close if $conn;
my $after = read_response($echo->send_get('/'));
is $after && $after->{body}, "plain\n", 'the worker serves again once the session ended';
is $echo->stop, 0, 'the blocking server stops';
unlike $chat->log . $echo->log, qr/\[error\]/, 'no error logged';

done_testing;
