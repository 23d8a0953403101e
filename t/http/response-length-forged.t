# An app whose body is longer than its Content-Length cannot forge the
# next response on the connection: the body is cut at the declared length
# and the connection closed after it, so a pipelined (or keep-alive)
# second request never reads the surplus ("X-Injected: yes") as its
# answer. Each body kind: an array, a streaming writer, a getline object,
# a file.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(start_server eventually);
use Kamado::Test::HTTP qw(exchange parse_all);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/body longer than its Content-Length: cut/);

my $dir = tempdir(CLEANUP => 1);
my $forged = "HTTP/1.1 200 OK\r\nX-Injected: yes\r\nContent-Length: 6\r\n\r\nforged";
open my $fh, '>', "$dir/file" or die;
print $fh "ok$forged";
close $fh;
$ENV{KT_FORGED} = $forged;
$ENV{KT_FILE} = "$dir/file";
my $server = start_server(app => <<'APP');
package Getline { sub new { bless [@_[1 .. $#_]], $_[0] } sub getline { shift @{ $_[0] } } sub close {} }
my $forged = $ENV{KT_FORGED};
my @head = ('Content-Type' => 'text/plain', 'Content-Length' => 2);
my %res = (
    '/array'   => sub { [200, [@head], ['o', "k$forged"]] },
    '/writer'  => sub { sub { my $w = shift->([200, [@head]]); $w->write('o'); $w->write("k$forged"); $w->close } },
    '/getline' => sub { [200, [@head], Getline->new('ok', $forged)] },
    '/file'    => sub { open my $fh, '<', $ENV{KT_FILE} or die; [200, [@head], $fh] },
);
sub {
    my $env = shift;
    my $res = $res{ $env->{PATH_INFO} };
    return $res ? $res->() : [200, ['Content-Type' => 'text/plain'], ['second']];
}
APP

for my $path (qw(/array /writer /getline /file)) {
    subtest $path => sub {
        # pipelined: both requests are on the wire before the answer
        my $c = $server->connect;
        my ($got, $how) = exchange($c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n");
        my ($res, $rest) = parse_all($got);
        is $res->[0]{body}, 'ok', 'the body, cut at its Content-Length';
        # (a streamed head is sent before the surplus is known)
        like $res->[0]{head}, qr/\r\nConnection: close\z/, 'the head says the connection ends'
            if $path eq '/array' || $path eq '/file';
        is $how, 'eof', 'and the server closes it';
        is scalar @$res, 1, 'one response: none for the pipelined request';
        unlike $got, qr/X-Injected/, 'the surplus never reaches the client';
        is $rest, '', 'no bytes after the declared length';
        ok eventually(sub { $server->log =~ m{GET \Q$path\E HTTP/1\.1: body longer than its Content-Length} }),
            'logged with the request line';
    };
}
my ($got) = exchange($server->connect, "GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
like $got, qr/\r\n\r\nsecond\z/, 'the worker serves the next connection';
done_testing;
