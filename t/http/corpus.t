# HTTP/1.1 conformance corpus (t/corpus/, format in t/corpus/README): every
# NAME.http is sent as is over a loopback socket to a live server and the
# answer checked against NAME.expect: statuses, connection closed or kept
# open, whether the app ran, and the %env and body it saw. Cases are grouped
# by their server options, one server per group.
#
# Then: pipelined requests (a Content-Length body, a chunked body, a GET)
# split in two writes at every byte offset; and a request sent on a
# connection after its 400 is never processed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Basename qw(dirname);
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Time::HiRes ();
use Kamado::Test::HTTP qw(parse_all read_until_close);
use Kamado::Test::Corpus qw(load_cases corpus_server records run_case escape);

my $started = Time::HiRes::time();
my $dir = dirname(__FILE__) . '/../corpus';
my $cases = load_cases($dir);
cmp_ok scalar @$cases, '>=', 170, scalar(@$cases) . ' cases in t/corpus';

# CORPUS=name-regex runs only the matching cases
my $only = $ENV{CORPUS};
my %group;
for my $case (@$cases) {
    next if defined $only && $case->{name} !~ /$only/;
    push $group{ join ' ', $case->{expect}{args}->@* }->@*, $case;
}

my $default;
for my $args (sort keys %group) {
    my $server = eval { corpus_server(args => [split ' ', $args]) };
    unless ($server) {
        my $err = $@;
        for my $case ($group{$args}->@*) {
            fail "$case->{name}: server with '$args' did not start";
        }
        diag "server with '$args' did not start: $err";
        next;
    }
    $default = $server if $args eq '';
    run_case($server, $_) for $group{$args}->@*;
}
$default //= eval { corpus_server() } or do {
    fail 'no server for the split and after-400 tests';
    diag $@;
    done_testing;
    exit;
};

# ------------------------------------------------------------------
# pipelined requests split across two reads at every byte offset

my @split = (
    ["POST /split-cl?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world", '/split-cl', 'hello world'],
    ["POST /split-chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;e=\"v\"\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n",
        '/split-chunked', 'hello world'],
    ["GET /split-last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", '/split-last', ''],
);
my $stream = join '', map { $_->[0] } @split;
my $want = join ' ', map { "$_->[1]=[$_->[2]]" } @split;
my @bad;
for my $off (1 .. length($stream) - 1) {
    my (undef, $at) = records($default, -s $default->{corpus_log} // 0);
    my $c = $default->connect;
    setsockopt $c, IPPROTO_TCP, TCP_NODELAY, 1;
    syswrite $c, substr $stream, 0, $off;
    Time::HiRes::sleep(0.004);    # long enough for the server to read the first part alone
    syswrite $c, substr $stream, $off;
    my ($got, $how) = read_until_close($c, 5);
    my ($res, $rest) = parse_all($got);
    my ($recs) = records($default, $at);
    my $seen = join ' ', map { "$_->{env}{PATH_INFO}=[$_->{body}]" } @$recs;
    my $status = join ' ', map { $_->{status} } @$res;
    push @bad, "offset $off: statuses [$status], app saw [$seen], rest [" . escape($rest) . "], $how"
        unless $status eq '200 200 200' && $rest eq '' && $how eq 'eof' && $seen eq $want;
}
is scalar @bad, 0, 'pipelined CL, chunked and GET requests split at each of ' . (length($stream) - 1) . ' offsets: all served, in order'
    or diag join "\n", @bad[0 .. ($#bad < 9 ? $#bad : 9)];

# ------------------------------------------------------------------
# a request sent after a 400 on the same connection is never processed

{
    my (undef, $at) = records($default, -s $default->{corpus_log} // 0);
    my $c = $default->connect;
    syswrite $c, "GET /bad HTTP/1.1\r\nHost: x\r\nX-A : 1\r\n\r\n";
    my $first = '';
    my $deadline = Time::HiRes::time() + 5;
    while ($first !~ /\r\n\r\n/ && Time::HiRes::time() < $deadline) {
        vec(my $rin = '', fileno $c, 1) = 1;
        select($rin, undef, undef, 0.5) or next;
        sysread($c, $first, 65536, length $first) or last;
    }
    like $first, qr{\AHTTP/1\.1 400 }, 'a 400 first';
    # the server may already have closed: a failed write is as good as ignored
    syswrite $c, "GET /after-400 HTTP/1.1\r\nHost: x\r\n\r\n";
    my ($more, $how) = read_until_close($c, 5);
    my ($res, $rest) = parse_all($first . $more);
    is join(' ', map { $_->{status} } @$res), '400', 'then nothing but the 400';
    ok $how eq 'eof' || $how eq 'reset', "and the connection closed ($how)";
    my ($recs) = records($default, $at);
    is scalar(@$recs), 0, 'the request after the 400 never reached the app';
}

note sprintf 'corpus.t took %.1f s', Time::HiRes::time() - $started;
done_testing;
