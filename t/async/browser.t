# The demo's async pages in a real browser (headless Chromium through
# chromedriver, as t/status/browser.t drives it): /ai/'s EventSource shows
# a streamed answer arriving token by token and ending; /chat/'s WebSocket
# sends a message and shows it broadcast back.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use IO::Socket::IP;
use Kamado::Test qw(start_server eventually);
use Kamado::Test::WebDriver;

my ($chromium) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
my ($driver) = grep { -x } qw(/usr/bin/chromedriver);
ok $chromium, 'chromium is installed' or BAIL_OUT('chromium is missing: run dev/deps');
ok $driver, 'chromedriver is installed' or BAIL_OUT('chromedriver is missing: run dev/deps');

# the demo's app and pools, on a port of the test's
my $dir = File::Temp->newdir;
my $listen = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 1, ReuseAddr => 1);
my $app_port = $listen->sockport;
close $listen;
local $ENV{AI_UPSTREAM} = "http://127.0.0.1:$app_port/ai/upstream";
my $server = start_server(app_file => 'examples/demo.psgi', self_bind => 1, port => $app_port, workers => 1,
    args => ['--listen', "127.0.0.1:$app_port", '--pool', 'ai:/ai/,async', '--pool', 'chat:/chat/,async']);

my $wd = Kamado::Test::WebDriver->start($driver, "$dir");
sub call { $wd->call(@_) }
sub js { call(POST => "/session/$_[0]/execute/sync", {script => $_[1], args => []}) }
ok $wd->ready, 'chromedriver is ready';
my $sid = eval { $wd->session($chromium) };
ok $sid, 'a headless Chromium session' or diag $@;

# the streamed answer: tokens appear before the end, then the end
call(POST => "/session/$sid/url", {url => "http://127.0.0.1:$app_port/ai/"});
js($sid, q{document.getElementById('go').click(); return 1});
my $partial;
ok eventually(sub {
    my $words = () = (js($sid, q{return document.getElementById('answer').textContent}) // '') =~ /\S+/g;
    $partial = $words if $words > 0 && $words < 60 && js($sid, q{return document.getElementById('state').textContent}) eq 'streaming';
    $partial;
}, 15), 'the answer arrives token by token (' . ($partial // 0) . ' of 60 shown while streaming)';
ok eventually(sub { js($sid, q{return document.getElementById('state').textContent}) eq 'done' }, 20), 'and ends';
my $words = () = js($sid, q{return document.getElementById('answer').textContent}) =~ /\S+/g;
is $words, 60, 'with all 60 tokens';

# the chat: a message sent over the WebSocket comes back to the page
call(POST => "/session/$sid/url", {url => "http://127.0.0.1:$app_port/chat/"});
ok eventually(sub { js($sid, q{return document.getElementById('log').textContent}) =~ /joined/ }, 10),
    'the chat page joined over its WebSocket';
js($sid, q{document.getElementById('m').value = 'hello from chromium'; document.getElementById('f').requestSubmit(); return 1});
ok eventually(sub { js($sid, q{return document.getElementById('log').textContent}) =~ /user \d+: hello from chromium/ }, 10),
    'a message sent comes back broadcast';

eval { call(DELETE => "/session/$sid") };
$wd->stop;
is $server->stop, 0, 'the server stops';
done_testing;
