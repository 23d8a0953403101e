# --cgi-docroot: scripts beside static files, as Apache's AddHandler
# cgi-script with Options ExecCGI. Names with a script extension (any
# case) run; other files are sent with their type, an ETag (If-None-Match
# compared weakly, as a list), 304, and byte ranges (206, 416); nothing
# that could be a script's source is ever sent (403): leftovers of
# editors and deploys, a script extension inside the name, a file
# starting with #!, a link to a script.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/not sent: (?:it starts with #!|its name is a script's or a leftover's)/);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $MARK = 'SOURCE-MARKER-77c1';
my $hello = "#!/usr/bin/perl\n# $MARK\nprint qq{Content-Type: text/plain\\n\\nhello from \$ENV{SCRIPT_NAME}};\n";
sub put_file {
    my ($name, $content, $mode) = @_;
    put_script($root, $name, $content);
    chmod $mode, "$root/$name" or die "$name: $!";
}
put_file($_, $hello, 0755) for 'hello.cgi', 'HELLO.CGI', 'Hello.Pl';
put_file($_, $hello, 0644) for 'x.cgi~', 'x.cgi.bak', 'x.cgi.', 'x.cgi.orig', '#x.cgi#', 'x.cgi.swp', 'x.cgi.save',
    'x.cgi.old', 'x.cgi.txt', 'noext', 'README~';
put_file('style.css', "body { color: red }\n", 0644);
my $png = "\x89PNG\r\n\x1a\n" . join('', map { chr } 0 .. 255);
put_file('logo.png', $png, 0644);
put_file('index.html', "<p>home</p>\n", 0644);
symlink 'hello.cgi', "$root/link.txt" or die;
symlink 'style.css', "$root/style-link.css" or die;

my $server;
sub get {
    my ($path, %h) = @_;
    my $head = join '', map { "$_: $h{$_}\r\n" } sort keys %h;
    my $raw = raw_request($server, "GET /site/$path HTTP/1.1\r\nHost: x\r\n${head}Connection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, body => '', headers => {} };
}

for my $mode (qw(fork exec registry perlrun)) {
    note "mode $mode";
    $server = start_server(no_app => 1, args => ['--cgi-docroot', "/site=$root", '--cgi-mode', $mode]);
    for my $name ('hello.cgi', 'HELLO.CGI', 'Hello.Pl') {
        my $r = get($name);
        is $r->{status}, 200, "$name: a script extension, any case: run";
        is $r->{body}, "hello from /site/$name", "$name: its output";
    }
    for my $name ('x.cgi~', 'x.cgi.bak', 'x.cgi.', 'x.cgi.orig', '%23x.cgi%23', 'x.cgi.swp', 'x.cgi.save', 'x.cgi.old',
                  'x.cgi.txt', 'noext', 'README~', 'link.txt') {
        my $r = get($name);
        is $r->{status}, 403, "$name: 403";
        unlike $r->{body}, qr/\Q$MARK/, "$name: nothing of it is sent";
    }
    is get('')->{body}, "<p>home</p>\n", 'the directory: its index.html';
    is $server->stop, 0, 'the server stops cleanly';
}

$server = start_server(no_app => 1, args => ['--cgi-docroot', "/site=$root"]);
my $r = get('style.css');
is $r->{status}, 200, 'a static file';
is $r->{body}, "body { color: red }\n", 'its bytes';
like $r->{headers}{'content-type'}, qr{^text/css\b}, 'text/css';
is get('style-link.css')->{body}, "body { color: red }\n", 'a link to a static file inside the root';
$r = get('logo.png');
is $r->{headers}{'content-type'}, 'image/png', 'image/png';
is $r->{body}, $png, 'its bytes';
is $r->{headers}{'accept-ranges'}, 'bytes', 'Accept-Ranges: bytes';
my ($etag, $modified) = @{ $r->{headers} }{qw(etag last-modified)};
like $etag, qr/\A"[0-9a-f-]+"\z/, 'an ETag';
is get('logo.png', 'If-None-Match' => $etag)->{status}, 304, 'If-None-Match: the ETag: 304';
is get('logo.png', 'If-None-Match' => "W/$etag")->{status}, 304, 'the weak ETag: 304 (weak comparison)';
is get('logo.png', 'If-None-Match' => qq{"other", $etag})->{status}, 304, 'in a list: 304';
is get('logo.png', 'If-None-Match' => '*')->{status}, 304, '*: 304';
is get('logo.png', 'If-None-Match' => '"other"')->{status}, 200, 'another ETag: 200';
is get('logo.png', 'If-None-Match' => '"other"', 'If-Modified-Since' => $modified)->{status}, 200,
    'another ETag and the right date: 200 (If-Modified-Since is ignored beside If-None-Match)';
is get('logo.png', 'If-Modified-Since' => $modified)->{status}, 304, 'If-Modified-Since: its Last-Modified: 304';
is get('logo.png', 'If-Modified-Since' => 'Fri, 01 Jan 2100 00:00:00 GMT')->{status}, 200,
    'If-Modified-Since in the future: ignored, 200';
$r = get('logo.png', Range => 'bytes=0-7');
is $r->{status}, 206, 'Range: 206';
is $r->{body}, "\x89PNG\r\n\x1a\n", 'those bytes';
is $r->{headers}{'content-range'}, 'bytes 0-7/' . length($png), 'Content-Range';
is $r->{headers}{'content-length'}, 8, 'Content-Length of the part';
$r = get('logo.png', Range => 'bytes=-4');
is $r->{body}, join('', map { chr } 252 .. 255), 'bytes=-4: the last four';
$r = get('logo.png', Range => 'bytes=260-');
is $r->{body}, substr($png, 260), 'bytes=260-: to the end';
$r = get('logo.png', Range => 'bytes=5000-');
is $r->{status}, 416, 'a range past the end: 416';
is $r->{headers}{'content-range'}, 'bytes */' . length($png), 'Content-Range: bytes */length';
is get('logo.png', Range => 'bytes=0-1,4-5')->{status}, 200, 'several ranges: the whole file';
is get('logo.png', Range => 'bytes=0-7', 'If-Range' => '"other"')->{status}, 200, 'If-Range of another version: 200';
is get('logo.png', Range => 'bytes=0-7', 'If-Range' => $etag)->{status}, 206, 'If-Range of this one: 206';
my $head = raw_request($server, "HEAD /site/logo.png HTTP/1.1\r\nHost: x\r\nRange: bytes=0-7\r\nConnection: close\r\n\r\n");
like $head, qr{\AHTTP/1\.1 200 .*\nContent-Length: ${\ length $png}\r\n.*\r\n\r\n\z}s, 'HEAD: the head, no body (no range)';
like $head, qr{\nAccept-Ranges: bytes\r\n}, 'HEAD: Accept-Ranges too';
is get('style.css/extra')->{status}, 404, 'path info after a static file: 404';
my $post = parse_response(raw_request($server,
    "POST /site/style.css HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx"));
is $post->{status}, 405, 'POST to a static file: 405';
is $server->stop, 0, 'the server stops cleanly';

# at /: the whole site is the document root
$server = start_server(no_app => 1, args => ['--cgi-docroot', $root]);
my $raw = raw_request($server, "GET /hello.cgi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
like $raw, qr{\r\n\r\nhello from /hello\.cgi\z}, '--cgi-docroot DIR: at /';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
