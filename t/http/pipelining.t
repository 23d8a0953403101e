# Pipelining: requests sent in one write are answered in order, each with its
# own body (GET, HEAD, POST with Content-Length, POST chunked), and nothing
# else is sent.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all);

my $server = start_server(app => <<'APP');
sub {
    my $env = shift;
    my $in = do { local $/; my $fh = $env->{'psgi.input'}; <$fh> } // '';
    [200, ['Content-Type' => 'text/plain'], ["$env->{REQUEST_METHOD} $env->{PATH_INFO}" . (length $in ? " [$in]" : '')]];
}
APP

my (@req, @want, @head);
for my $i (1 .. 20) {
    my $kind = $i % 5;
    if ($kind == 1) {
        push @req, "POST /cl$i HTTP/1.1\r\nHost: x\r\nContent-Length: " . length("body$i") . "\r\n\r\nbody$i";
        push @want, "POST /cl$i [body$i]";
    } elsif ($kind == 2) {
        push @req, "POST /ch$i HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n" . sprintf("%x", length "$i$i") . ";x=y\r\n$i$i\r\n0\r\n\r\n";
        push @want, "POST /ch$i [abc$i$i]";
    } elsif ($kind == 3) {
        push @req, "HEAD /h$i HTTP/1.1\r\nHost: x\r\n\r\n";
        push @want, '';
        $head[$#req] = 1;
    } else {
        push @req, "GET /g$i?q=$i HTTP/1.1\r\nHost: x\r\n\r\n";
        push @want, "GET /g$i";
    }
}
push @req, "GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
push @want, 'GET /last';

my $c = $server->connect;
my ($got, $how) = exchange($c, join('', @req));
is $how, 'eof', 'the server closed after the request with Connection: close';
my ($res, $rest) = parse_all($got, no_body => \@head);
is scalar(@$res), scalar(@req), 'one response per request';
is $rest, '', 'and not a byte more';
is_deeply [map { $_->{body} } @$res], \@want, 'in order, each with its own body';
is_deeply [map { $_->{status} } @$res], [(200) x @req], 'all 200';
is $res->[2]{headers}{'content-length'}, length('HEAD /h3'), 'HEAD: the Content-Length of the GET, no body';
done_testing;
