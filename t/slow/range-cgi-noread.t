# Two responses that used to hold a worker for --write-timeout per client
# that does not read: a byte range of a static file larger than 8 times
# --write-buffer (Kamado::Middleware::Range: now the file's part, sent by
# the event loop from a descriptor of its own) and a fork-mode CGI script's
# output of a few MB (relayed as it comes: what the client does not take
# is held for the loop, in a temporary file past --write-buffer). One
# worker, --write-timeout 30: clients that never read, then a normal
# request, answered long before the write timeout (bound: 10 s).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Socket qw(SOL_SOCKET SO_RCVBUF);
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $root = tempdir(CLEANUP => 1);
open my $big, '>', "$root/big.bin" or die $!;
truncate $big, 12 * 1024 * 1024 or die "truncate: $!";    # sparse: no disk used
close $big;
open my $page, '>', "$root/index.html" or die $!;
print $page "<p>home</p>\n";
close $page;
open my $cgi, '>', "$root/big.cgi" or die $!;
print $cgi <<'CGI';
#!/usr/bin/perl
binmode STDOUT;
print "Content-Type: application/octet-stream\r\n\r\n";
print 'x' x 65536 for 1 .. 128;    # 8 MB
CGI
close $cgi;
chmod 0755, "$root/big.cgi";

my $server = start_server(no_app => 1, workers => 1,
    args => ['--cgi-docroot', $root, '--write-timeout', 30, '--write-buffer', 65536]);

# a client that sends its request, then never reads; returned once the
# answer has started (the worker has taken it)
sub stalled {
    my ($request) = @_;
    my $c = $server->connect;
    setsockopt $c, SOL_SOCKET, SO_RCVBUF, 4096;
    syswrite $c, $request;
    vec(my $rin = '', fileno $c, 1) = 1;
    ok select(my $r = $rin, undef, undef, 20), 'the answer has started';
    return $c;
}

sub prompt_get {
    my ($what) = @_;
    my $t0 = Time::HiRes::time();
    my $c = $server->connect;
    syswrite $c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, timeout => 40);
    my $took = Time::HiRes::time() - $t0;
    is $res && $res->{body}, "<p>home</p>\n", "$what: a normal request is answered";
    cmp_ok $took, '<', 10, sprintf '%s: in %.2f s, long before the write timeout', $what, $took;
}

my @held = map { stalled("GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1-\r\n\r\n") } 1 .. 2;
prompt_get('two Range clients that do not read');
push @held, stalled("GET /big.cgi HTTP/1.1\r\nHost: x\r\n\r\n");
prompt_get('and a CGI client that does not read');

# the ranges are whole and right: read one to its end
my $c = $server->connect;
syswrite $c, "GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=5-\r\n\r\n";
my $res = read_response($c, timeout => 40);
is $res && $res->{status}, 206, 'a range: 206';
is $res->{headers}{'content-range'}, 'bytes 5-12582911/12582912', 'its Content-Range';
is length $res->{body}, 12 * 1024 * 1024 - 5, 'every byte of it';
syswrite $c, "GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=10-19\r\n\r\n";
$res = read_response($c, timeout => 20);
is $res && $res->{body}, "\0" x 10, 'a closed range on the same connection';
syswrite $c, "GET /big.cgi HTTP/1.1\r\nHost: x\r\n\r\n";
$res = read_response($c, timeout => 40);
is $res && length $res->{body}, 8 * 1024 * 1024, 'the whole CGI output';
close $_ for @held, $c;
is $server->stop, 0, 'stops cleanly';
done_testing;
