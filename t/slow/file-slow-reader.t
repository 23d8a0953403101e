# A slow reader of a file body gets all of it, intact, from the event loop
# while the worker serves others: one worker, a 4 MB file read at about
# 800 KB/s, and a GET from another client answered long before the file is
# through. The file goes out on a keep-alive connection with requests
# pipelined behind it, answered in order once it is sent: a HEAD of the
# file (headers only), the file from an offset (a handle already seeked,
# as a Range middleware leaves it) and a small answer.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use File::Temp ();
use Socket qw(SOL_SOCKET SO_RCVBUF);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $SIZE = 4 * 1024 * 1024;
my $OFFSET = 1_000_000;
my $file = File::Temp->new;
my $data = join '', map { pack 'N', int rand 2**32 } 1 .. $SIZE / 4;
print $file $data;
close $file;
local $ENV{KT_FILE} = $file->filename;
my $server = start_server(workers => 1, app => <<'APP');
sub {
    my $env = shift;
    my $p = $env->{PATH_INFO};
    return [200, ['Content-Type' => 'text/plain'], ["small $p"]] if $p ne '/file' && $p ne '/tail';
    open my $fh, '<:raw', $ENV{KT_FILE} or die "$ENV{KT_FILE}: $!";
    sysseek $fh, 1_000_000, 0 if $p eq '/tail';
    [200, ['Content-Type' => 'application/octet-stream'], $fh];
}
APP

my $c = $server->connect;
setsockopt $c, SOL_SOCKET, SO_RCVBUF, 16384;
syswrite $c, join '', map { "$_ HTTP/1.1\r\nHost: x\r\n\r\n" } 'GET /file', 'HEAD /file', 'GET /tail', 'GET /last';

# reads 16 KB every 20 ms; a GET from another client once 512 KB are in
my ($in, $t0, $other, $other_took, $had) = ('', Time::HiRes::time());
while (Time::HiRes::time() - $t0 < 30 && $in !~ /small \/last\z/) {
    vec(my $rin = '', fileno $c, 1) = 1;
    select(my $r = $rin, undef, undef, 1) or next;
    sysread($c, $in, 16384, length $in) or last;
    if (!$other && length $in > 512 * 1024) {
        my $t = Time::HiRes::time();
        my $res = read_response($server->send_get('/other'), timeout => 10);
        $other_took = Time::HiRes::time() - $t if $res && $res->{body} eq 'small /other';
        $had = length $in;
        $other = 1;
    }
    Time::HiRes::sleep(0.02);
}
ok defined $other_took, 'another client is answered while the file is read slowly';
cmp_ok $other_took // 99, '<', 2, sprintf 'promptly (%.3f s)', $other_took // 99;
cmp_ok $had // $SIZE, '<', $SIZE, 'before the slow reader had the file';

my $buf = $in;
my $res = read_response($c, buffer => \$buf, timeout => 30);
is $res && $res->{status}, 200, 'the slow reader: 200';
is $res->{headers}{'content-length'}, $SIZE, 'Content-Length of the file';
is length $res->{body}, $SIZE, 'all of it';
ok md5_hex($res->{body}) eq md5_hex($data), 'intact (MD5)';
$res = read_response($c, buffer => \$buf, head => 1);
is $res && $res->{status}, 200, 'the pipelined HEAD: 200';
is $res->{headers}{'content-length'}, $SIZE, 'with the length';
$res = read_response($c, buffer => \$buf, timeout => 30);
is $res && length $res->{body}, $SIZE - $OFFSET, 'the file from an offset: the rest of it';
ok $res && md5_hex($res->{body}) eq md5_hex(substr $data, $OFFSET), 'intact';
$res = read_response($c, buffer => \$buf);
is $res && $res->{body}, 'small /last', 'then the last pipelined request, on the same connection';
is $buf, '', 'nothing more';
done_testing;
