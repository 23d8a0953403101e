# A large request body reaches a CGI script as the file the server spooled
# it to, not as a second copy: while the script runs, the server's
# processes (worker, zygote, script) hold one file of the body's size, and
# the script's STDIN is it. In every mode; also with chunked framing and
# with Expect: 100-continue. A small body still reaches the script whole.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::CGI qw(put_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $flags = File::Temp::tempdir(CLEANUP => 1);
my $SIZE = 3_000_001;
put_script($root, 'body.cgi', <<'CGI');
my ($flag) = $ENV{QUERY_STRING} =~ /\A([\w\/.-]+)\z/;
my ($n, $sum) = (0, 0);
while (my $got = sysread STDIN, my $buf, 65536) { $n += $got; $sum += unpack '%32C*', $buf }
my $stdin = -f STDIN ? 'file' : -p STDIN ? 'pipe' : 'other';
open my $ready, '>', "$flag.ready" or die;
close $ready;
for (1 .. 500) { last if -e "$flag.go"; select undef, undef, undef, 0.02 }
print "Content-Type: text/plain\n\n$n $sum $stdin";
CGI

# the distinct regular files of exactly $size bytes the processes under
# $pid have open
sub files_of_size {
    my ($pid, $size) = @_;
    my %kids;
    for my $stat (glob '/proc/[0-9]*/stat') {
        open my $fh, '<', $stat or next;
        my ($p, $pp) = (<$fh> // '') =~ /^(\d+) \(.*\) \S+ (\d+)/s or next;
        push $kids{$pp}->@*, $p;
    }
    my (@todo, %files) = ($pid);
    while (defined(my $p = shift @todo)) {
        push @todo, ($kids{$p} // [])->@*;
        for my $fd (glob "/proc/$p/fd/*") {
            my @st = stat $fd or next;
            $files{"$st[0]:$st[1]"} = 1 if -f _ && $st[7] == $size;
        }
    }
    return scalar keys %files;
}

my $body = join '', map { chr(($_ * 7) % 251) } 1 .. $SIZE;
my $sum = unpack '%32C*', $body;
my $i = 0;
for my $mode (qw(fork exec registry perlrun)) {
    my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $framing ('length', 'chunked', 'expect') {
        note "mode $mode, $framing";
        my $flag = "$flags/" . $i++;
        my $c = $server->connect;
        my $head = "POST /cgi-bin/body.cgi?$flag HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
        $head .= $framing eq 'chunked' ? "Transfer-Encoding: chunked\r\n" : "Content-Length: $SIZE\r\n";
        $head .= "Expect: 100-continue\r\n" if $framing eq 'expect';
        my $payload = $framing eq 'chunked'
            ? join('', map { sprintf("%x\r\n", length) . "$_\r\n" } unpack('(a65536)*', $body)) . "0\r\n\r\n"
            : $body;
        syswrite $c, "$head\r\n";
        if ($framing eq 'expect') {
            my $continue = read_response($c);
            is $continue->{status}, 100, '100 Continue when the script reads its input';
        }
        my $off = 0;
        while ($off < length $payload) {
            my $n = syswrite $c, $payload, 1 << 20, $off;
            die "write: $!" unless defined $n;
            $off += $n;
        }
        ok eventually(sub { -e "$flag.ready" }, 30), 'the script has read its input';
        is files_of_size($server->pid, $SIZE), 1, 'one file holds the body while the script runs: no second copy';
        open my $go, '>', "$flag.go" or die;
        close $go;
        my $r = read_response($c);
        is $r->{body}, "$SIZE $sum file", 'the script read the whole body from a file on STDIN';
    }
    my $c = $server->connect;
    syswrite $c, "POST /cgi-bin/body.cgi?$flags/small HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello";
    open my $go, '>', "$flags/small.go" or die;
    close $go;
    like read_response($c)->{body}, qr/\A5 \d+ /, 'a small body reaches it whole';
    is $server->stop, 0, 'the server stops cleanly';
}
done_testing;
