# A body that is an object with getline and close (IO::Handle-like, not a
# real file), here with --write-buffer 0 (the worker writes it all itself;
# else what a slow client does not take is held for the event loop:
# t/http/getline-streamed.t), is sent line by line:
# chunked over HTTP/1.1 without a Content-Length, as is with one; close()
# is called before the response ends; the connection goes on. A real pipe
# handle (not a plain file) goes the same way.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all slurp);

my $dir = tempdir(CLEANUP => 1);
$ENV{KT_DIR} = $dir;
my $server = start_server(args => ['--write-buffer', 0], app => <<'APP');
package Lines {
    sub new { my ($class, $tag, @lines) = @_; bless { tag => $tag, lines => [@lines] }, $class }
    sub getline { shift @{ $_[0]{lines} } }
    sub close { my $self = shift; open my $fh, '>>', "$ENV{KT_DIR}/closed" or die; print $fh "$self->{tag}\n"; close $fh }
}
sub {
    my $path = $_[0]{PATH_INFO};
    return [200, ['Content-Type' => 'text/plain', 'Content-Length' => 9], Lines->new('cl', "abc\n", "def\n", "g")]
        if $path eq '/length';
    if ($path eq '/pipe') {
        open my $fh, '-|', $^X, '-e', 'print "from a pipe\n" for 1 .. 3' or die $!;
        return [200, ['Content-Type' => 'text/plain'], $fh];
    }
    return [200, ['Content-Type' => 'text/plain'], Lines->new('chunked', "line 1\n", '', "line 3\n", 'x' x 70000)];
}
APP

my $c = $server->connect;
my ($got, $how) = exchange($c, "GET /chunked HTTP/1.1\r\nHost: x\r\n\r\nGET /length HTTP/1.1\r\nHost: x\r\n\r\n"
    . "GET /pipe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($res, $rest) = parse_all($got);
is scalar(@$res), 3, 'three responses';
is $res->[0]{headers}{'transfer-encoding'}, 'chunked', 'no Content-Length: chunked';
is $res->[0]{raw_body}, "7\r\nline 1\n\r\n7\r\nline 3\n\r\n11170\r\n" . ('x' x 70000) . "\r\n0\r\n\r\n",
    'one chunk per line, an empty line sends nothing';
is $res->[1]{headers}{'content-length'}, 9, 'the app\'s Content-Length';
ok !exists $res->[1]{headers}{'transfer-encoding'}, 'then not chunked';
is $res->[1]{raw_body}, "abc\ndef\ng", 'the lines as they are';
is $res->[2]{body}, "from a pipe\n" x 3, 'a pipe handle is read to its end';
is $rest, '', 'nothing else';
is $how, 'eof', 'closed as asked';
is slurp("$dir/closed"), "chunked\ncl\n", 'close() was called on each body, by the time the client had it';
done_testing;
