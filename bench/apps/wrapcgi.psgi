# bench/cgi's Starman peer: bench/cgi-bin's scripts under Plack::App::WrapCGI,
# one app per script at the URL Apache and Kamado give it, in WrapCGI's
# default mode (compiled once by CGI::Compile, run as a sub per request).
use strict;
use warnings;
use File::Basename qw(dirname);
use Plack::App::URLMap;
use Plack::App::WrapCGI;

my $dir = dirname(__FILE__) . '/../cgi-bin';
my $map = Plack::App::URLMap->new;
for my $script (qw(hello.cgi performance_test.cgi)) {
    $map->map("/cgi-bin/$script" => Plack::App::WrapCGI->new(script => "$dir/$script")->to_app);
}
$map->to_app;
