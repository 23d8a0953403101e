# A body that arrives slowly goes out as it arrives: a handle on a pipe
# (a command printing a line every 0.4 s) and a getline object that waits
# as long between lines each give their first line long before their last
# (the worker sends what the body has, it does not read it to its end
# first), chunked, every byte in order, and the connection goes on. A
# pipe whose whole output is there at once goes out with its length, and
# one whose last bytes come with its end loses none of them.
# Times are bounds only: the first line at least a second before the end.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 1, app => <<'APP');
package Slow {
    sub new { bless { i => 0 }, shift }
    sub getline { my $s = shift; return undef if $s->{i} >= 5; select undef, undef, undef, 0.4 if $s->{i}; "line " . $s->{i}++ . "\n" }
    sub close { }
}
sub {
    my $path = $_[0]{PATH_INFO};
    if ($path eq '/pipe') {
        open my $fh, '-|', $^X, '-e', '$| = 1; for (0 .. 4) { select undef, undef, undef, 0.4 if $_; print "line $_\n" }'
            or die $!;
        return [200, ['Content-Type' => 'text/plain'], $fh];
    }
    if ($path eq '/end-with-bytes') {
        # the last bytes and the end of the pipe come together: written
        # in one go, then the writer gone at once
        open my $fh, '-|', $^X, '-MPOSIX', '-e',
            '$| = 1; print "line 0\n"; select undef, undef, undef, 0.3; syswrite STDOUT, "line 1\nline 2\nline 3\nline 4\n"; POSIX::_exit(0)'
            or die $!;
        return [200, ['Content-Type' => 'text/plain'], $fh];
    }
    if ($path eq '/quick') {
        pipe my $r, my $w or die $!;
        print $w map { "line $_\n" } 0 .. 4;
        close $w;
        return [200, ['Content-Type' => 'text/plain'], $r];
    }
    return [200, ['Content-Type' => 'text/plain'], Slow->new];
}
APP

my $lines = join '', map { "line $_\n" } 0 .. 4;
my $c = $server->connect;
for my $path ('/pipe', '/object') {
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    my $start = Time::HiRes::time();
    vec(my $rin = '', fileno $c, 1) = 1;
    select my $r = $rin, undef, undef, 20;
    my $first = Time::HiRes::time() - $start;
    my $res = read_response($c, timeout => 20);
    my $end = Time::HiRes::time() - $start;
    is $res && $res->{status}, 200, "$path: 200";
    is $res->{headers}{'transfer-encoding'}, 'chunked', 'chunked';
    is $res->{body}, $lines, 'every line, in order';
    cmp_ok $end - $first, '>', 1, sprintf 'the first bytes at %.2f s, the end at %.2f s', $first, $end;
}
for my $n (1 .. 5) {
    syswrite $c, "GET /end-with-bytes HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, timeout => 20);
    is $res && $res->{body}, $lines, "the last bytes, which come with the end of the pipe, are sent too ($n)";
}
syswrite $c, "GET /quick HTTP/1.1\r\nHost: x\r\n\r\n";
my $res = read_response($c, timeout => 20);
is $res && $res->{headers}{'content-length'}, length $lines, 'a pipe with all of it at once: its length';
is $res->{body}, $lines, 'every line';
is $server->stop, 0, 'stops cleanly';
done_testing;
