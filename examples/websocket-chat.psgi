# A WebSocket chat room, for kamado --async: every message a client sends
# goes to every client connected. The server answers the handshake's 101
# (Protocol::WebSocket computes its headers) and the socket is the app's
# from then on, as psgix.io; the frames are Protocol::WebSocket's.
#
#   kamado --async examples/websocket-chat.psgi
#   open http://127.0.0.1:5000/ in two browser tabs
use strict;
use warnings;
use AnyEvent;
use AnyEvent::Handle;
use Protocol::WebSocket::Frame;
use Protocol::WebSocket::Handshake::Server;

my %clients;    # id => AnyEvent::Handle
my $next_id = 0;

my $PAGE = <<'HTML';
<!doctype html>
<meta charset="utf-8"><title>Kamado chat</title>
<ul id="log"></ul>
<form id="f"><input id="m" autocomplete="off" autofocus><button>Send</button></form>
<script>
const ws = new WebSocket(location.href.replace(/^http/, 'ws') + 'chat');
const log = document.getElementById('log');
ws.onmessage = e => { const li = document.createElement('li'); li.textContent = e.data; log.appendChild(li); };
document.getElementById('f').onsubmit = e => { e.preventDefault(); const m = document.getElementById('m'); ws.send(m.value); m.value = ''; };
</script>
HTML

sub broadcast {
    my ($text) = @_;
    my $bytes = Protocol::WebSocket::Frame->new($text)->to_bytes;
    $_->push_write($bytes) for values %clients;
}

sub {
    my ($env) = @_;
    return [200, ['Content-Type' => 'text/html; charset=utf-8'], [$PAGE]] if $env->{PATH_INFO} eq '/';
    return [404, ['Content-Type' => 'text/plain'], ["not found\n"]] if $env->{PATH_INFO} ne '/chat';
    my $io = $env->{'psgix.io'}
        or return [400, ['Content-Type' => 'text/plain'], ["a WebSocket upgrade is expected\n"]];
    die "websocket-chat.psgi needs an async worker (kamado --async)\n" unless $env->{'psgi.nonblocking'};
    my $hs = Protocol::WebSocket::Handshake::Server->new_from_psgi($env);
    $hs->parse('') && $hs->is_done
        or return [400, ['Content-Type' => 'text/plain'], ['bad handshake: ' . ($hs->error // 'incomplete') . "\n"]];
    return sub {
        my ($responder) = @_;
        $responder->([101, $hs->res->headers]);
        my $id = ++$next_id;
        my $frame = Protocol::WebSocket::Frame->new(version => $hs->version, max_payload_size => 65536);
        my $leave = sub {
            my $h = delete $clients{$id} or return;
            $h->destroy;
            broadcast("user $id left");
        };
        $clients{$id} = AnyEvent::Handle->new(
            fh       => $io,
            on_error => $leave,
            on_eof   => $leave,
            on_read  => sub {
                my ($h) = @_;
                $frame->append(delete $h->{rbuf});
                while (defined(my $message = $frame->next_bytes)) {
                    if ($frame->is_close) {
                        $h->push_write(Protocol::WebSocket::Frame->new(type => 'close', version => $hs->version)->to_bytes);
                        return $leave->();
                    }
                    if ($frame->is_ping) {
                        $h->push_write(Protocol::WebSocket::Frame->new(type => 'pong', buffer => $message)->to_bytes);
                        next;
                    }
                    broadcast("user $id: $message") if $frame->is_text;
                }
            },
        );
        broadcast("user $id joined");
    };
};
