# A request body the event loop cannot write to its temporary file (a
# full TMPDIR) is a 500, and an error line says which request, which
# directory and why (errno): it was a 500 with no line at all. TMPDIR is
# a 64 KiB tmpfs mounted in a mount namespace of the server's own
# (unshare -m, as root); a body that fits in memory is still served.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request eventually);
use Kamado::Test::HTTP qw(parse_response);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/can't write the request body to a temporary file/);

plan skip_all => 'needs root to mount a tmpfs' if $>;
plan skip_all => 'needs unshare -m and tmpfs'
    if system('unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs /mnt" 2>/dev/null') != 0;

my $dir = File::Temp->newdir;
mkdir "$dir/tmp" or die;
local $ENV{KT_TMP} = "$dir/tmp";
my $server = start_server(
    prefix => ['unshare', '-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$KT_TMP" && TMPDIR="$KT_TMP" exec "$@"', 'sh'],
    app    => 'sub { my $in = $_[0]{"psgi.input"}; my $n = 0; while (my $r = $in->read(my $b, 65536)) { $n += $r }
                     [200, ["Content-Type" => "text/plain"], ["read $n"]] }');

sub post {
    my ($path, $body, $chunked) = @_;
    my $head = "POST $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
    my $req = $chunked ? "${head}Transfer-Encoding: chunked\r\n\r\n" . sprintf("%x\r\n", length $body) . "$body\r\n0\r\n\r\n"
        : "${head}Content-Length: " . length($body) . "\r\n\r\n$body";
    return parse_response(raw_request($server, $req)) // { status => 0, body => '' };
}

is post('/small', 'x' x 1000)->{body}, 'read 1000', 'a small body: served';
is post('/big?id=1', 'x' x 2_000_000)->{status}, 500, 'a 2 MB body, TMPDIR full: 500';
is post('/chunked?id=2', 'x' x 2_000_000, 1)->{status}, 500, 'a 2 MB chunked body: 500';
my $tmp = quotemeta "$dir/tmp";
for (['POST /big\?id=1 HTTP/1\.1', 'the Content-Length one'], ['POST /chunked\?id=2 HTTP/1\.1', 'the chunked one']) {
    my ($line, $name) = @$_;
    ok eventually(sub { $server->log =~ /\[error\] worker \d+: $line: answered 500 to 127\.0\.0\.1: can't write the request body to a temporary file in $tmp: No space left on device\n/ }, 10),
        "$name: an error line with the request, the directory and errno" or diag $server->log;
}
is post('/small', 'y' x 10)->{body}, 'read 10', 'then a small body again: served';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
