# nginx in front of Kamado over a unix socket, configured by
# examples/nginx.conf: a plain request; an upload of 3 MB arrives whole
# (its checksum); a streamed response (a PSGI writer) under /stream/
# reaches the client in parts, as the app writes them.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Digest::MD5 qw(md5_hex);
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::Nginx qw(start_nginx);

my $dir = File::Temp->newdir;
my $app = <<'APP';
use Digest::MD5;
use Time::HiRes ();
sub {
    my ($env) = @_;
    if ($env->{PATH_INFO} eq '/upload') {
        my $md5 = Digest::MD5->new;
        my $n = 0;
        while ((my $got = $env->{'psgi.input'}->read(my $buf, 65536)) > 0) { $md5->add($buf); $n += $got }
        return [200, ['Content-Type' => 'text/plain'], ["$n " . $md5->hexdigest]];
    }
    if ($env->{PATH_INFO} eq '/stream/') {
        return sub {
            my $w = $_[0]->([200, ['Content-Type' => 'text/plain']]);
            for my $part (1 .. 3) {
                $w->write(sprintf "part %d at %.3f\n", $part, Time::HiRes::time());
                Time::HiRes::sleep(0.5) if $part < 3;
            }
            $w->close;
        };
    }
    return [200, ['Content-Type' => 'text/plain'], ["hello $env->{SERVER_PROTOCOL}"]];
}
APP
my $server = start_server(app => $app, unix => "$dir/kamado.sock", workers => 2);
my $nginx = start_nginx(unix => "$dir/kamado.sock");

sub request {
    my ($bytes) = @_;
    my $c = $nginx->connect;
    syswrite $c, $bytes;
    return $c;
}
my $res = read_response(request("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"));
is $res && $res->{status}, 200, 'GET through nginx' or diag $nginx->error_log;
is $res && $res->{body}, 'hello HTTP/1.1', 'nginx speaks HTTP/1.1 to Kamado (proxy_http_version 1.1)';

my $body = join '', map { pack 'N', int rand 2**32 } 1 .. 3 * 1024 * 1024 / 4;
my $c = request("POST /upload HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n"
    . "Content-Type: application/octet-stream\r\nContent-Length: " . length($body) . "\r\n\r\n");
my $off = 0;
while ($off < length $body) {
    my $n = syswrite $c, $body, 65536, $off;
    defined $n or last;
    $off += $n;
}
$res = read_response($c, timeout => 30);
is $res && $res->{body}, length($body) . ' ' . md5_hex($body), 'a 3 MB upload arrives whole (length and MD5)';

# the parts are timestamped by the app; each must arrive before the next
# is written (0.5 s later), so well before the response ends
$c = request("GET /stream/ HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n");
my ($buf, @arrived) = ('');
my $deadline = time + 20;
while (time < $deadline) {
    vec(my $rin = '', fileno $c, 1) = 1;
    select($rin, undef, undef, 1) or next;
    my $n = sysread $c, $buf, 65536, length $buf;
    last unless $n;
    my $now = Time::HiRes::time();
    push @arrived, [$1, $2, $now] while $buf =~ /\G.*?part (\d) at ([0-9.]+)\n/gcs;
    $buf = substr $buf, pos($buf) // 0;
}
is scalar @arrived, 3, 'three parts arrive';
my ($first) = grep { $_->[0] == 1 } @arrived;
my ($last) = grep { $_->[0] == 3 } @arrived;
ok $first && $last && $first->[2] < $last->[1], 'the first part arrived before the app wrote the last'
    or diag explain \@arrived;

is $nginx->stop, 0, 'nginx stops';
is $server->stop, 0, 'Kamado stops';
done_testing;
