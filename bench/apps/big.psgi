# bench/apps/hello.psgi, plus /big: an 8 MiB body, for the slow-reader
# scenario of bench/slow-attacks.
use strict;
use warnings;
use File::Basename ();
use Plack::Util;

my $hello = Plack::Util::load_psgi(File::Basename::dirname(__FILE__) . '/hello.psgi');
my $big   = 'x' x (8 * 1024 * 1024);

sub {
    my $env = shift;
    return [200, ['Content-Type' => 'application/octet-stream', 'Content-Length' => length $big], [$big]]
        if $env->{PATH_INFO} eq '/big';
    $hello->($env);
};
