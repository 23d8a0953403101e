# A body that is a real file handle is sent whole (sendfile), with the
# file's size as Content-Length; over HEAD only the headers go out; the
# connection goes on.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server);
use Kamado::Test::HTTP qw(exchange parse_all);

my $dir = tempdir(CLEANUP => 1);
my $content = join '', map { chr(($_ * 13) % 256) } 1 .. 200_000;
open my $fh, '>:raw', "$dir/data" or die;
print $fh $content;
close $fh;
$ENV{KT_DIR} = $dir;
my $server = start_server(app => <<'APP');
sub {
    open my $fh, '<:raw', "$ENV{KT_DIR}/data" or die $!;
    [200, ['Content-Type' => 'application/octet-stream'], $fh];
}
APP

my $c = $server->connect;
my ($got, $how) = exchange($c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /b HTTP/1.1\r\nHost: x\r\n\r\n"
    . "GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($res, $rest) = parse_all($got, no_body => [0, 1, 0]);
is scalar(@$res), 3, 'three responses';
is $res->[0]{headers}{'content-length'}, 200_000, 'Content-Length is the file size';
ok $res->[0]{body} eq $content, 'the file, byte for byte';
is $res->[1]{headers}{'content-length'}, 200_000, 'HEAD: the same Content-Length';
ok $res->[2]{body} eq $content, 'the next request gets the whole file again';
is $rest, '', 'and HEAD sent no body';
is $how, 'eof', 'closed as asked';
done_testing;
