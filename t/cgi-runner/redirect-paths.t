# Apache's rules for a script's Location and for encoded slashes, in
# every mode: a Location starting with / is a path of this site (Apache's
# ap_parse_uri reads //host/x as the path /host/x), so //evil.example/x
# (and /\evil.example/x, which browsers read the same way) never sends the
# client to another site; %2F in the path is 404 (AllowEncodedSlashes Off),
# it never reaches a script.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
mkdir "$root/sub" or die;
put_script($root, 'evil.cgi', "print qq{Location: //evil.example/x?y=1\\n\\n};\n");
put_script($root, 'back.cgi', "print qq{Location: /\\\\evil.example/x\\n\\n};\n");
put_script($root, 'inner.cgi', "print qq{Location: ///cgi-bin/sub/hello.cgi?from=inner\\n\\n};\n");
put_script($root, 'sub/hello.cgi', "print qq{Content-Type: text/plain\\n\\nhello \$ENV{QUERY_STRING}};\n");

my $server;
sub get {
    my ($path) = @_;
    my $raw = raw_request($server, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, body => '', headers => {} };
}
for my $mode (qw(fork exec registry perlrun)) {
    note "mode $mode";
    $server = start_server(app => 'sub { [200, ["Content-Type" => "text/plain"], ["app at $_[0]{PATH_INFO}"]] }',
        args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $r = get('/cgi-bin/evil.cgi');
    is $r->{status}, 302, '//evil.example/x: a redirect';
    is $r->{headers}{location}, '/evil.example/x?y=1', 'to the path /evil.example/x of this site, never to another';
    $r = get('/cgi-bin/back.cgi');
    is $r->{headers}{location}, '/evil.example/x', '/\\evil.example/x: the same';
    is get('/cgi-bin/inner.cgi')->{body}, 'hello from=inner', '///cgi-bin/...: served here, as a local path';
    is get('/cgi-bin/sub/hello.cgi')->{body}, 'hello ', 'a script in a directory';
    is get('/cgi-bin/sub%2Fhello.cgi')->{status}, 404, '%2F: 404, as AllowEncodedSlashes Off';
    is get('/cgi-bin/sub%2fhello.cgi?x=%2F')->{status}, 404, '%2f: 404 too';
    is get('/cgi-bin/sub/hello.cgi?x=%2F')->{body}, 'hello x=%2F', '%2F in the query is no slash of the path';
    is $server->stop, 0, 'the server stops cleanly';
}
done_testing;
