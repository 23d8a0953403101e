#!/usr/bin/env perl
# examples/ai-stream.psgi as a Mojolicious::Lite app, for Hypnotoad in
# bench/ai-streams/run: an SSE proxy of a slow AI upstream with
# Mojo::UserAgent, each answer relayed token by token as it arrives, the
# upstream call cancelled as soon as the client leaves.
#
#   AI_UPSTREAM=http://127.0.0.1:5001/v1/stream HYPNOTOAD_LISTEN=http://127.0.0.1:5000 \
#       hypnotoad -f bench/ai-streams/ai-stream-mojo.pl
#
# /ai/stream streams (its query string is passed on); any other path is a
# fast route that answers at once. Hypnotoad's settings come from the
# environment (HYPNOTOAD_LISTEN, _WORKERS, _CLIENTS, _PID_FILE), so that
# the bench runs it with the same workers as the other servers.
use Mojolicious::Lite -signatures;
use Mojo::URL;
use Mojo::UserAgent;

my $UPSTREAM = $ENV{AI_UPSTREAM} // 'http://127.0.0.1:5001/v1/stream';
my $ua = Mojo::UserAgent->new(inactivity_timeout => 30);

app->config(
    hypnotoad => {
        listen   => [$ENV{HYPNOTOAD_LISTEN} // 'http://127.0.0.1:5000'],
        workers  => $ENV{HYPNOTOAD_WORKERS} // 4,
        clients  => $ENV{HYPNOTOAD_CLIENTS} // 1000,    # per worker
        accepts  => 0,                                   # a worker is never replaced
        pid_file => $ENV{HYPNOTOAD_PID_FILE} // '/tmp/ai-stream-mojo.pid',
    }
);
app->log->level('warn');

get '/ai/stream' => sub ($c) {
    $c->render_later;
    my $url = Mojo::URL->new($UPSTREAM)->query($c->req->url->query->to_string);
    my $tx = $ua->build_tx(GET => $url);
    my $res = $tx->res;
    $res->max_message_size(0);
    my ($started, $done, $gone);
    # the upstream's headers: answer with them before its first token
    $res->content->once(
        body => sub {
            return if $res->code != 200;
            $started = 1;
            $c->res->headers->content_type('text/event-stream')->cache_control('no-cache');
            $c->write;
        }
    );
    # (an empty write ends the answer, and the parser reads empty pieces)
    $res->content->unsubscribe('read')
        ->on(read => sub ($content, $bytes) { $c->write($bytes) if $started && !$gone && length $bytes });
    # the client left (before or after the first token): cancel the
    # upstream call by closing its connection
    $c->on(
        finish => sub {
            $gone = 1;
            Mojo::IOLoop->remove($tx->connection) if !$done && $tx->connection;
        }
    );
    $ua->start(
        $tx => sub ($ua, $tx) {
            $done = 1;
            return if $gone;
            return $c->finish if $started;
            my $why = $tx->res->error ? $tx->res->error->{message} : $tx->res->code;
            $c->render(status => 502, text => "upstream: $why\n");
        }
    );
};

any '/*any' => {any => ''} => sub ($c) { $c->render(text => "fast\n", format => 'txt') };

app->start;
