# The URL path is normalised before it is mapped, as Apache does: slashes
# in a row are one and dot segments are resolved, so //cgi/x.cgi,
# /./cgi/x.cgi and /x/../cgi/x.cgi run the script of the CGI directory
# mounted at /cgi instead of reaching the PSGI app beside it; a path above
# the root is a 400. And a directory of a --cgi-docroot asked for as
# //NAME is sent to /NAME/, never to //NAME/ (a URL of the host NAME).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'x.cgi', qq{print "Content-Type: text/plain\\n\\n", "cgi \$ENV{SCRIPT_NAME} [\$ENV{PATH_INFO}]";\n});

my $server;
sub get {
    my ($path) = @_;
    my $raw = raw_request($server, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, body => '', headers => {} };
}

$server = start_server(args => ['--cgi-bin', "/cgi=$root"],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["app $_[0]{PATH_INFO}"]] }');
for (['//cgi/x.cgi', 'cgi /cgi/x.cgi []'], ['/./cgi/x.cgi', 'cgi /cgi/x.cgi []'], ['/x/../cgi/x.cgi', 'cgi /cgi/x.cgi []'],
     ['/x/%2e%2e/cgi/x.cgi', 'cgi /cgi/x.cgi []'], ['/cgi//./x.cgi//a/./b/../c', 'cgi /cgi/x.cgi [/a/c]'],
     ['/cgi/x.cgi', 'cgi /cgi/x.cgi []'], ['/cgi/../other', 'app /other'], ['//other//y', 'app /other/y'],
     ['/cgix/../cgi/x.cgi/', 'cgi /cgi/x.cgi [/]']) {
    my ($path, $want) = @$_;
    my $r = get($path);
    is "$r->{status} $r->{body}", "200 $want", "$path: $want";
}
is get($_)->{status}, 400, "$_: above the root, 400" for '/..', '/cgi/../../cgi/x.cgi', '/%2e%2e/cgi/x.cgi';
is $server->stop, 0, 'the server stops cleanly';

my $docroot = File::Temp::tempdir(CLEANUP => 1);
mkdir "$docroot/evil.example" or die;
open my $fh, '>', "$docroot/evil.example/index.html" or die;
print $fh "<p>in</p>\n";
close $fh;
$server = start_server(args => ['--cgi-docroot', $docroot], no_app => 1);
for (['//evil.example' => '/evil.example/'], ['//evil.example?q=1' => '/evil.example/?q=1'],
     ['///evil.example' => '/evil.example/'], ['/evil.example' => '/evil.example/']) {
    my ($path, $want) = @$_;
    my $r = get($path);
    is $r->{status}, 301, "$path: 301";
    is $r->{headers}{location}, $want, "$path: to $want";
}
is get('//evil.example/')->{status}, 200, '//evil.example/: the index';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
