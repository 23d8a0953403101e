# A request that ends its worker does not take the worker's other
# connections with it (issue 23 M5): killed by --request-timeout (an app
# that swallows the soft stop), crashed in C (a segfault), or ended by an
# exit in the app. Each time, on one worker: the request that ended it
# gets its 504 (the timeout) or 500; two other clients whose responses the
# loop still held (an 8 MB array body spooled, a 20 MB file body), not
# read yet, get them whole when they read afterwards; an idle keep-alive
# client reads an orderly end, not a reset; the generation replaces the
# worker and serves on.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response);

my $file = File::Temp->new;
print $file pack('N', $_) x 1024 for 1 .. 5120;    # 20 MB, each 4 KiB block its number
close $file;
local $ENV{KT_FILE} = $file->filename;
my $server = start_server(workers => 1,
    args => ['--request-timeout', 1, '--write-buffer', 131072, '--write-timeout', 30], app => <<'APP');
my $array = [map { sprintf('%07d', $_) x 10_000 } 1 .. 120];    # 8.4 MB
sub {
    my $p = $_[0]{PATH_INFO};
    return [200, ['Content-Type' => 'text/plain'], $array] if $p eq '/array';
    if ($p eq '/file') {
        open my $fh, '<:raw', $ENV{KT_FILE} or die $!;
        return [200, ['Content-Type' => 'application/octet-stream'], $fh];
    }
    if ($p eq '/stubborn') { for (1 .. 10) { eval { sleep 1 } } }    # swallows the soft stop
    if ($p eq '/segv') { my $x = unpack 'p', pack 'J', 8 }             # reads address 8
    exit 0 if $p eq '/exit';
    [200, ['Content-Type' => 'text/plain'], ["fast $$"]];
}
APP

my $array = join '', map { sprintf('%07d', $_) x 10_000 } 1 .. 120;

# a client that asks, then does not read (most of its response held by
# the loop: the socket buffers take a few hundred kB)
sub holder {
    my ($path) = @_;
    my $c = $server->connect;
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    vec(my $rin = '', fileno $c, 1) = 1;
    select my $r = $rin, undef, undef, 20;    # its answer has started
    return $c;
}

for my $case (['/stubborn', 504, 'killed by --request-timeout'], ['/segv', 500, 'a segfault'], ['/exit', 500, 'an exit in the app']) {
    my ($path, $status, $what) = @$case;
    note $what;
    my $idle = $server->connect;
    syswrite $idle, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";
    my $first = read_response($idle, timeout => 20);
    my ($pid) = ($first && $first->{body} // '') =~ /fast (\d+)/;
    ok $pid, "$what: an idle keep-alive client of worker " . ($pid // '?');
    my $held_array = holder('/array');
    my $held_file = holder('/file');
    my $ender = $server->send_get($path);
    my ($got, $how) = read_until_close($ender, 20);
    my $res = parse_response($got);
    is $res && $res->{status}, $status, "$what: the request that ended the worker gets $status" or diag explain $got;
    for my $held ([$held_array, 'the array body', length $array], [$held_file, 'the file body', 20 * 1024 * 1024]) {
        my ($c, $name, $length) = @$held;
        my ($bytes, $end) = read_until_close($c, 60);
        my ($head, $body) = split /\r\n\r\n/, $bytes, 2;
        is length($body // ''), $length, "$what: $name held by the loop arrives whole";
        if ($name eq 'the array body') {
            ok $body eq $array, '... every byte';
        } else {
            my $bad = grep { substr($body // '', $_ * 4096, 4) ne pack 'N', $_ + 1 } 0 .. 5119;
            is $bad, 0, '... every block';
        }
    }
    my ($rest, $idle_end) = read_until_close($idle, 20);
    is $idle_end, 'eof', "$what: the idle client reads an orderly end";
    is $rest, '', '... and nothing else';
    my $after = read_response($server->send_get('/fast'), timeout => 20);
    like $after && $after->{body}, qr/^fast (?!$pid\b)\d+/, "$what: a new worker serves after";
}
is $server->stop, 0, 'stops cleanly';
like $server->log, qr/killed by --request-timeout/, 'the kill is logged as before';
done_testing;
