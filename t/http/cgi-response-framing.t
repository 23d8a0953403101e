# A CGI script's head goes through the same framing rules as a PSGI
# app's (lib/Kamado.pm, "Response framing"), in every --cgi-mode: a body
# longer than the Content-Length it printed is cut there and the
# connection closed (a pipelined request is never answered with the
# surplus, "X-Injected: yes"), printed later (streamed) too; its own
# chunked body is decoded and framed again; a bad
# Content-Length is a 500 with a log
# line; its Connection field is dropped.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::HTTP qw(exchange parse_all);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/invalid response from the app|body longer than its Content-Length/);

my $root = File::Temp::tempdir(CLEANUP => 1);
sub put {
    my ($name, $content) = @_;
    open my $fh, '>', "$root/$name" or die "$name: $!";
    print $fh $content;
    close $fh;
    chmod 0755, "$root/$name";
}
my $forged = 'HTTP/1.1 200 OK\r\nX-Injected: yes\r\nContent-Length: 6\r\n\r\nforged';
put('longer.cgi', qq{#!/usr/bin/perl\nprint "Content-Type: text/plain\\nContent-Length: 2\\n\\nok$forged";\n});
# (streamed: the head goes out before the rest of the body is printed)
put('longer-late.cgi', qq{#!/usr/bin/perl\n\$| = 1; print "Content-Type: text/plain\\nContent-Length: 2\\n\\no"; select undef, undef, undef, 0.6; print "k$forged";\n});
put('bad-length.cgi', qq{#!/usr/bin/perl\nprint "Content-Type: text/plain\\nContent-Length: 2x\\n\\nok";\n});
put('te.cgi', qq{#!/usr/bin/perl\nprint "Content-Type: text/plain\\nTransfer-Encoding: chunked\\n\\n2\\r\\nok\\r\\n0\\r\\n\\r\\n";\n});
put('connection.cgi', qq{#!/usr/bin/perl\nprint "Content-Type: text/plain\\nConnection: keep-alive\\nKeep-Alive: timeout=99\\n\\nok";\n});
put('next.cgi', qq{#!/usr/bin/perl\nprint "Content-Type: text/plain\\n\\nnext";\n});

my $NEXT = "GET /cgi-bin/next.cgi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
for my $mode (qw(exec fork registry perlrun)) {
    my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $script (qw(longer longer-late)) {
        subtest "$mode: $script.cgi" => sub {
            my ($got, $how) = exchange($server->connect, "GET /cgi-bin/$script.cgi HTTP/1.1\r\nHost: x\r\n\r\n$NEXT");
            my ($res, $rest) = parse_all($got);
            is $res->[0]{status}, 200, 'status 200';
            is $res->[0]{body}, 'ok', 'the body, cut at its Content-Length';
            is scalar @$res, 1, 'one response: none for the pipelined request';
            unlike $got, qr/X-Injected/, 'the surplus never reaches the client';
            is $rest, '', 'nothing after the declared length';
            is $how, 'eof', 'the connection closed';
            ok eventually(sub { $server->log =~ m{GET /cgi-bin/\Q$script\E\.cgi HTTP/1\.1: body longer than its Content-Length} }),
                'logged with the request line';
        };
    }
    subtest "$mode: bad-length.cgi" => sub {
        my ($got, $how) = exchange($server->connect, "GET /cgi-bin/bad-length.cgi HTTP/1.1\r\nHost: x\r\n\r\n$NEXT");
        my ($res) = parse_all($got);
        is $res->[0]{status}, 500, 'status 500';
        is $res->[1]{body}, 'next', 'the connection serves the next request';
        ok eventually(sub { $server->log =~ m{GET /cgi-bin/bad-length\.cgi HTTP/1\.1: .*bad Content-Length} }),
            'logged: bad Content-Length';
    };
    subtest "$mode: te.cgi" => sub {
        my ($got, $how) = exchange($server->connect, "GET /cgi-bin/te.cgi HTTP/1.1\r\nHost: x\r\n\r\n$NEXT");
        my ($res) = parse_all($got);
        is $res->[0]{status}, 200, "a script's own chunks: 200";
        is $res->[0]{body}, 'ok', 'decoded, framed again';
        is scalar(() = $res->[0]{head} =~ /^Transfer-Encoding:/mgi), scalar(() = $res->[0]{head} =~ /^Transfer-Encoding: chunked\r?$/mgi),
            'no Transfer-Encoding but the server\'s';
        is $res->[1]{body}, 'next', 'the connection serves the next request';
    };
    subtest "$mode: connection.cgi" => sub {
        my ($got) = exchange($server->connect, "GET /cgi-bin/connection.cgi HTTP/1.1\r\nHost: x\r\n\r\n$NEXT");
        my ($res) = parse_all($got);
        is $res->[0]{body}, 'ok', 'served';
        unlike $res->[0]{head}, qr/^(?:Connection|Keep-Alive):/mi, "the script's Connection and Keep-Alive dropped";
        is $res->[1]{body}, 'next', 'the server decides: kept alive';
    };
    $server->stop;
}
done_testing;
