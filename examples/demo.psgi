# What ./dev/demo serves: an index page linking the examples.
use strict;
use warnings;
use File::Basename qw(dirname);
use Plack::Builder;
use Plack::Util;

my $dir   = dirname(__FILE__);
my $hello = Plack::Util::load_psgi("$dir/hello.psgi");
my $perf  = Plack::Util::load_psgi("$dir/performance_test.psgi");

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
$status
</ul>
<p>Served by worker $$.</p>
</body></html>
HTML
    return [200, ['Content-Type' => 'text/html; charset=utf-8'], [$html]];
};

builder {
    mount '/hello'            => $hello;
    mount '/performance_test' => $perf;
    mount '/'                 => $index;
};
