# With --expect-to-app, Expect: 100-continue is answered only when the app
# reads its input: an app that answers without reading (a 401, a redirect) sends no 100, and
# the connection ends with the response (its body was never sent, so the
# next request's start is unknown). Reading works through every handle
# call an app may use.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close parse_response wait_for_file slurp);
use File::Temp ();

# (in a directory of its own, removed when the test ends: the file must
# not exist before the handler writes it)
my $late_dir = File::Temp->newdir;
my $late_log = "$late_dir/late.log";
local $ENV{KT_LATE} = $late_log;
my $server = start_server(args => ['--expect-to-app'], app => <<'APP');
sub {
    my $env = shift;
    my $in = $env->{'psgi.input'};
    my $p = $env->{PATH_INFO};
    return [401, ['Content-Type' => 'text/plain'], ['who are you']] if $p eq '/deny';
    if ($p eq '/late') {
        # reading once the answer is out must fail, not read anything
        push @{ $env->{'psgix.cleanup.handlers'} }, sub {
            my $n = eval { read $in, my $buf, 10 };
            open my $fh, '>', $ENV{KT_LATE} or die;
            print $fh defined $n ? "read $n" : "died: $@";
        };
        return [200, ['Content-Type' => 'text/plain'], ['early']];
    }
    my $got = '';
    if ($p eq '/read') {
        while ($in->read(my $buf, 3)) { $got .= $buf }
    } elsif ($p eq '/getline') {
        while (defined(my $line = $in->getline)) { $got .= "[$line]" }
    } elsif ($p eq '/seek') {
        $in->read(my $buf, 4);
        $in->seek(0, 0);
        $got = do { local $/; <$in> };
    }
    [200, ['Content-Type' => 'text/plain'],
     ["$p buffered=" . ($env->{'psgix.input.buffered'} ? 1 : 0) . " got=$got"]];
}
APP

my $H = "Host: x\r\n";

subtest 'the app answers without reading' => sub {
    my $c = $server->connect;
    syswrite $c, "PUT /deny HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Length: 5\r\n\r\n";
    my ($got, $how) = read_until_close($c, 5);
    my $res = parse_response($got);
    is $res && $res->{status_line}, 'HTTP/1.1 401 Unauthorized', 'the final answer, with no 100 before it';
    is $res && $res->{headers}{connection}, 'close', 'Connection: close (the body was never sent)';
    is $how, 'eof', 'then closed';
};

subtest 'the input cannot be read after the answer' => sub {
    my $c = $server->connect;
    syswrite $c, "PUT /late HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Length: 5\r\n\r\n";
    my ($got) = read_until_close($c, 5);
    like $got, qr{\AHTTP/1\.1 200 OK\r\n}, 'the answer, with no 100 before it';
    ok wait_for_file($late_log, 30), 'the cleanup handler ran';
    # (made, then written: its line, once it is there)
    my $until = time + 30;
    select undef, undef, undef, 0.01 until -s $late_log || time > $until;
    like slurp($late_log), qr{^died: Kamado: the request body can be read only while the request is served},
        'its read died';
};

# (chunked: the worker decodes it, the path the event loop leaves to it)
for my $case (['/read', "a\nbc\nd", 'got=a\nbc\nd'], ['/getline', "a\nbc\n", 'got=[a\n][bc\n]'],
              ['/seek', "abcdef", 'got=abcdef'], ['/read', "a\nbc\nd", 'got=a\nbc\nd', 'chunked']) {
    my ($path, $body, $want, $chunked) = @$case;
    $want =~ s/\\n/\n/g;
    subtest "the app reads: $path" . ($chunked ? ' (chunked)' : '') => sub {
        my $c = $server->connect;
        syswrite $c, "POST $path HTTP/1.1\r\n${H}Expect: 100-continue\r\n"
            . ($chunked ? "Transfer-Encoding: chunked" : "Content-Length: " . length($body)) . "\r\n\r\n";
        my $interim = read_response($c, timeout => 5);
        is $interim && $interim->{status}, 100, '100 Continue once the app reads';
        syswrite $c, $chunked ? sprintf("%x\r\n%s\r\n0\r\n\r\n", length $body, $body) : $body;
        my $res = read_response($c);
        is $res && $res->{status}, 200, 'then the answer';
        is $res && $res->{body}, "$path buffered=0 $want", 'with the whole body';
        syswrite $c, "GET /next HTTP/1.1\r\n${H}\r\n";
        my $next = read_response($c);
        is $next && $next->{status}, 200, 'the connection goes on';
    };
}
done_testing;
