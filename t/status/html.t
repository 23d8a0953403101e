# --status-listen: the HTML page escapes what clients sent (a request line
# with <script> in it shows as text), refreshes itself (meta refresh, 5 s
# by default, ?refresh=N, 0 for none); unknown paths are 404, other
# methods 405 with Allow.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_get status_json wait_file_app);

my $dir = File::Temp->newdir;
local $ENV{KT_DIR} = "$dir";
my $server = status_server(workers => 1, app => wait_file_app(), args => ['--status-query']);

my $c = $server->send_get(q{/block?go&<script>alert("x")</script>&'quote'});
ok eventually(sub { grep { $_->{state} eq 'app' } status_json($server)->{workers}->@* }), 'a request in the app';
my $res = status_get($server, '/');
is $res->{status}, 200, 'GET /: 200';
like $res->{headers}{'content-type'}, qr{^text/html; charset=utf-8}, 'HTML';
my $html = $res->{content};
unlike $html, qr/<script/i, 'no <script> element anywhere';
like $html, qr{GET /block\?go&#38;&#60;script&#62;alert\(&#34;x&#34;\)&#60;/script&#62;&#38;&#39;quote&#39;},
    'the request line, escaped';
like $html, qr{<meta http-equiv="refresh" content="5">}, 'refreshes every 5 s by default';
like status_get($server, '/?refresh=2')->{content}, qr{<meta http-equiv="refresh" content="2">}, '?refresh=2';
unlike status_get($server, '/?refresh=0')->{content}, qr{http-equiv="refresh"}, '?refresh=0: none';
like $html, qr{<table id="workers">}, 'the workers table';
like $html, qr{<table id="pools">.*<td>default</td>}s, 'the pools table';
like $html, qr{<table id="generations">.*<td>serving</td>}s, 'the generations table';
like $html, qr{<dt>Uptime</dt>}, 'uptime';
like $html, qr{<dt>Requests per second</dt>}, 'requests per second';

is status_get($server, '/nothing')->{status}, 404, 'an unknown path: 404';
is status_get($server, '/status.json/x')->{status}, 404, 'a longer path: 404';
for my $method (qw(POST PUT DELETE)) {
    my $r = status_get($server, '/', $method);
    is $r->{status}, 405, "$method: 405";
    is $r->{headers}{allow}, 'GET, HEAD', 'Allow: GET, HEAD';
}
is status_get($server, '/metrics', 'HEAD')->{status}, 200, 'HEAD /metrics: 200';

open my $go, '>', "$dir/go" or die;
close $go;
is read_response($c)->{status}, 200, 'the held request answered';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
