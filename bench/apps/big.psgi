# bench/apps/hello.psgi, plus /big: an 8 MiB body, and /file: a 50 MB file
# body (a filehandle on a sparse temporary file), for the slow-reader
# scenarios of bench/slow-attacks; /upload reads the request body (as a
# CGI script does) for its upload scenario.
use strict;
use warnings;
use File::Basename ();
use File::Temp ();
use Plack::Util;

my $hello = Plack::Util::load_psgi(File::Basename::dirname(__FILE__) . '/hello.psgi');
my $big   = 'x' x (8 * 1024 * 1024);
my $file  = File::Temp->new;    # removed when the server exits
truncate $file, 50 * 1024 * 1024 or die "big.psgi: truncate: $!\n";

sub {
    my $env = shift;
    return [200, ['Content-Type' => 'application/octet-stream', 'Content-Length' => length $big], [$big]]
        if $env->{PATH_INFO} eq '/big';
    if ($env->{PATH_INFO} eq '/upload') {
        my ($in, $n) = ($env->{'psgi.input'}, 0);
        while ((my $got = $in->read(my $buf, 65536)) > 0) { $n += $got }
        return [200, ['Content-Type' => 'text/plain'], ["$n bytes\n"]];
    }
    if ($env->{PATH_INFO} eq '/file') {
        open my $fh, '<:raw', $file->filename or die "big.psgi: $!\n";
        return [200, ['Content-Type' => 'application/octet-stream'], $fh];
    }
    $hello->($env);
};
