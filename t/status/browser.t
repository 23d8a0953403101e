# --status-listen in a real browser: headless Chromium, driven through
# chromedriver's W3C WebDriver HTTP API, loads the status page; the
# rendered worker table has one row a worker (pid cells from the DOM are
# the generation's children), the busy one in state app with its request
# line shown as text (a <script> in it never runs), the page reloads
# itself with ?refresh=1, and a screenshot is saved under the test's
# temporary directory (and at $KAMADO_STATUS_SCREENSHOT when set).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use MIME::Base64 ();
use Time::HiRes ();
use Kamado::Test qw(eventually read_response);
use Kamado::Test::WebDriver;
use Kamado::Test::Status qw(status_server status_json wait_file_app);

my ($chromium) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
my ($driver) = grep { -x } qw(/usr/bin/chromedriver);
# dev/deps installs both (chromium, chromium-driver): missing, this fails
ok $chromium, 'chromium is installed' or BAIL_OUT('chromium is missing: run dev/deps');
ok $driver, 'chromedriver is installed' or BAIL_OUT('chromedriver is missing: run dev/deps');

my $dir = File::Temp->newdir;
local $ENV{KT_DIR} = "$dir";
my $server = status_server(workers => 2, app => wait_file_app(), args => ['--status-query']);
my $held = $server->send_get('/block?go&<script>document.title="pwned"</script>');
ok eventually(sub { grep { $_->{state} eq 'app' } status_json($server)->{workers}->@* }), 'a request in the app';
ok eventually(sub { !grep { !$_->{memory}{private} } status_json($server)->{workers}->@* }),
    'the workers\' memory measured (once a second)';

# chromedriver on a port of its own, stopped by its pid
my $wd = Kamado::Test::WebDriver->start($driver, "$dir");
sub call { $wd->call(@_) }
ok $wd->ready, 'chromedriver is ready';

my $t0 = Time::HiRes::time();
my $session = eval { $wd->session($chromium, '--window-size=1280,900') };
ok $session, 'a headless Chromium session' or diag $@;
my $sid = "/session/$session";
my $page = "http://127.0.0.1:$server->{status_port}/?refresh=0";
call(POST => "$sid/url", {url => $page});
is call(POST => "$sid/execute/sync", {script => 'return document.title', args => []}), 'Kamado Status',
    'the page loaded (its title, not one a request line set)';

my $rows = call(POST => "$sid/execute/sync", {args => [], script => <<'JS'});
return Array.from(document.querySelectorAll('#workers tbody tr'))
    .map(function (r) { return Array.from(r.cells).map(function (c) { return c.textContent; }); });
JS
my $head = call(POST => "$sid/execute/sync", {args => [],
    script => q{return Array.from(document.querySelectorAll('#workers thead th')).map(function (c) { return c.textContent; })}});
is_deeply $head, ['Pid', 'Generation', 'Pool', 'State', 'Request', 'Age (s)', 'Requests', 'Connections', 'Streams', 'Private', 'Shared', 'Pss'],
    'the worker table\'s columns';
my %col = map { ($head->[$_] => $_) } 0 .. $#$head;
is scalar @$rows, 2, 'one row a worker';
is_deeply [sort { $a <=> $b } map { $_->[ $col{Pid} ] } @$rows], [sort { $a <=> $b } $server->workers],
    'the pid cells are the workers\' pids';
my ($busy) = grep { $_->[ $col{State} ] eq 'app' } @$rows;
ok $busy, 'a row in state app';
is $busy && $busy->[ $col{Request} ], 'GET /block?go&<script>document.title="pwned"</script>',
    'its request line shown as text';
like $busy && $busy->[ $col{'Age (s)'} ], qr/^\d+\.\d$/, 'with the request\'s age';
like $_->[ $col{Private} ], qr/^\d+(?:\.\d)? (?:B|KiB|MiB|GiB)$/, 'private memory' for @$rows;
like $_->[ $col{Shared} ], qr/^\d+(?:\.\d)? (?:B|KiB|MiB|GiB)$/, 'shared memory' for @$rows;
is call(POST => "$sid/execute/sync", {args => [], script => 'return document.querySelectorAll("td script").length'}), 0,
    'no script element in the table';

my $png = MIME::Base64::decode_base64(call(GET => "$sid/screenshot"));
is substr($png, 0, 8), "\x89PNG\r\n\x1a\n", 'a PNG screenshot';
for my $path ("$dir/status.png", $ENV{KAMADO_STATUS_SCREENSHOT} // ()) {
    open my $fh, '>:raw', $path or die "$path: $!";
    print $fh $png;
    close $fh;
    ok -s $path > 1000, "saved at $path";
}

# ?refresh=1: the page reloads itself (a mark left in the old page is gone)
call(POST => "$sid/url", {url => "http://127.0.0.1:$server->{status_port}/?refresh=1"});
call(POST => "$sid/execute/sync", {args => [], script => 'window.ktMark = 1; return 1'});
ok eventually(sub { !call(POST => "$sid/execute/sync", {args => [], script => 'return window.ktMark || 0'}) }, 8),
    '?refresh=1: the browser reloads it';

eval { call(DELETE => $sid) };
cmp_ok Time::HiRes::time() - $t0, '<', 20, 'the browser part within 20 s';
$wd->stop;

open my $go, '>', "$dir/go" or die;
close $go;
is read_response($held)->{status}, 200, 'the held request answered';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
