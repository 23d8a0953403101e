# What ./dev/demo serves: an index page linking the examples.
use strict;
use warnings;
use File::Basename qw(dirname);
use Plack::Builder;
use Plack::Util;

my $dir   = dirname(__FILE__);
my $hello = Plack::Util::load_psgi("$dir/hello.psgi");
my $perf  = Plack::Util::load_psgi("$dir/performance_test.psgi");
# async pools (dev/demo's --pool ai:/ai/,async and chat:/chat/,async): an
# AI answer streamed from the fake upstream, served here too, and a chat
my $upstream = Plack::Util::load_psgi("$dir/../bench/ai-streams/upstream.psgi");
my $ai       = Plack::Util::load_psgi("$dir/ai-stream.psgi");
my $chat     = Plack::Util::load_psgi("$dir/websocket-chat.psgi");

my $AI_PAGE = <<'HTML';
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Kamado: a streamed answer</title></head>
<body>
<h1>A streamed answer</h1>
<p>An async worker relays the fake upstream's tokens (one every 50 ms) as they come
(examples/ai-stream.psgi); close the page mid-answer and the upstream call is cancelled.</p>
<p><button id="go">Ask</button> <span id="state"></span></p>
<p id="answer"></p>
<script>
document.getElementById('go').onclick = () => {
  const answer = document.getElementById('answer'), state = document.getElementById('state');
  answer.textContent = ''; state.textContent = 'streaming';
  const es = new EventSource('/ai/stream?tokens=60');
  es.onmessage = e => {
    if (e.data === '[DONE]') { es.close(); state.textContent = 'done'; return; }
    answer.textContent += e.data + ' ';
  };
  es.onerror = () => { es.close(); state.textContent = 'closed'; };
};
</script>
</body></html>
HTML

# /ai/upstream: the fake upstream; /ai/stream: the proxy of it; /ai/: the page
my $ai_routes = sub {
    my ($env) = @_;
    return $upstream->($env) if $env->{PATH_INFO} eq '/ai/upstream';
    return $ai->($env) if $env->{PATH_INFO} eq '/ai/stream';
    return [200, ['Content-Type' => 'text/html; charset=utf-8'], [$AI_PAGE]] if $env->{PATH_INFO} eq '/ai/';
    return [404, ['Content-Type' => 'text/plain'], ["Not Found\n"]];
};

my $index = sub {
    my $env = shift;
    return [404, ['Content-Type' => 'text/plain'], ["Not Found\n"]] if $env->{PATH_INFO} ne '/';
    # dev/demo starts a status listener and says where
    my $status = $ENV{KAMADO_DEMO_STATUS}
        ? qq{<li><a href="$ENV{KAMADO_DEMO_STATUS}">$ENV{KAMADO_DEMO_STATUS}</a>: the status page (--status-listen), also as <a href="$ENV{KAMADO_DEMO_STATUS}status.json">status.json</a> and <a href="$ENV{KAMADO_DEMO_STATUS}metrics">metrics</a></li>}
        : '';
    my $html = <<"HTML";
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Kamado demo</title></head>
<body>
<h1>Kamado $Kamado::VERSION</h1>
<ul>
<li><a href="/hello">/hello</a>: Hello World</li>
<li><a href="/performance_test">/performance_test</a>: the test app of seed 000</li>
<li><a href="/cgi-bin/counter.cgi">/cgi-bin/counter.cgi</a>: an unchanged legacy CGI script (examples/cgi-bin), run persistently in fork mode</li>
<li><a href="/ai/">/ai/</a>: an AI answer streamed token by token from a slow upstream, in an async pool (examples/ai-stream.psgi)</li>
<li><a href="/chat/">/chat/</a>: a WebSocket chat, in an async pool (examples/websocket-chat.psgi)</li>
$status
</ul>
<p>Served by worker $$.</p>
</body></html>
HTML
    return [200, ['Content-Type' => 'text/html; charset=utf-8'], [$html]];
};

my $site = builder {
    mount '/chat'             => $chat;
    mount '/hello'            => $hello;
    mount '/performance_test' => $perf;
    mount '/'                 => $index;
};

# (the ai routes see the whole path, as ai-stream.psgi expects)
sub {
    my ($env) = @_;
    return $env->{PATH_INFO} =~ m{\A/ai/} ? $ai_routes->($env) : $site->($env);
};
