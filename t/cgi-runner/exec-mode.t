# --cgi-bin in both modes, exec (a new perl per request, as mod_cgi) and
# fork (compiled once, a fork per request), over real sockets: Apache's URL to script mapping, static files beside the
# scripts, what is refused, the CGI environment, the output rules
# (Status, Location, malformed heads, nph-), real file descriptors
# (system), streaming, STDERR to the log, and --cgi-bin beside a PSGI app.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response raw_request eventually);
use Kamado::Test::HTTP qw(parse_response);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(
    qr/end of script output before headers|malformed header from script|not executable by the server/,
    qr/a symbolic link to \S+, outside \S+: not followed/
);

my $site = File::Temp::tempdir(CLEANUP => 1);
my $root = "$site/cgi";
mkdir $root or die;
mkdir "$root/$_" or die for qw(sub noindex);
sub put {
    my ($name, $content, $mode) = @_;
    open my $fh, '>', "$root/$name" or die "$name: $!";
    print $fh $content;
    close $fh;
    chmod $mode // 0755, "$root/$name";
}
put('env.cgi', <<'CGI');
#!/usr/bin/perl -w
use Cwd ();
print "Content-Type: text/plain\n\n";
print "$_=$ENV{$_}\n" for sort keys %ENV;
print "cwd=", Cwd::getcwd(), "\n";
my $body = '';
read(STDIN, $body, $ENV{CONTENT_LENGTH} || 0);
print "body=$body\n";
CGI
put('status.cgi', "print qq{Status: 404 Not Here\\nContent-Type: text/html\\n\\nmissing};\n");
put('away.cgi', "print qq{Location: http://example.com/x\\n\\n};\n");
put('inside.cgi', "print qq{Location: /cgi-bin/env.cgi/via?redirected=1\\n\\n};\n");
put('bad-head.cgi', "print qq{hello before headers\\n\\nbody};\n");
put('silent.cgi', "exit 0;\n");
put('dies.cgi', "die qq{broken at the start\\n};\n");
put('nph-raw.cgi', "\$| = 1; print qq{HTTP/1.0 202 Accepted\\r\\nContent-Type: text/plain\\r\\nX-Nph: yes\\r\\n\\r\\nraw};\n");
put('system.cgi', "\$| = 1; print qq{Content-Type: text/plain\\n\\n}; system 'echo', 'from a child'; print qq{after\\n};\n");
put('stream.cgi', <<'CGI');
$| = 1;
print "Content-Type: text/plain\n\nfirst\n";
for (1 .. 500) { last if -e $ENV{QUERY_STRING}; select undef, undef, undef, 0.02 }
print "second\n";
CGI
put('warns.cgi', "print qq{Content-Type: text/plain\\n\\nok}; warn qq{something odd\\n};\n");
put('sub/index.cgi', "print qq{Content-Type: text/plain\\n\\nindex of sub \$ENV{SCRIPT_NAME}};\n");
put('style.css', "body { color: red }\n", 0644);
put('noindex/readme.txt', "text\n", 0644);
put('.htpasswd', "secret\n", 0644);
symlink '/etc/hostname', "$root/escape.txt" or die;
symlink '/etc', "$root/etc" or die;
symlink 'sub', "$root/inner" or die;

my $server;
sub get {
    my ($path, %h) = @_;
    my $head = join '', map { "$_: $h{$_}\r\n" } sort keys %h;
    my $raw = raw_request($server, "GET $path HTTP/1.1\r\nHost: example.org\r\n${head}Connection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, raw => $raw };
}
sub env_of { my %e = $_[0]{body} =~ /^([^=\n]+)=(.*)$/mg; \%e }

for my $mode (qw(exec fork registry perlrun)) {
    note "mode $mode";
    my $app = 'sub { [200, ["Content-Type" => "text/plain"], ["the psgi app at $_[0]{PATH_INFO}"]] }';
    $server = start_server(app => $app, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);


    my $r = get('/cgi-bin/env.cgi/a/b%20c?x=1&y=2');
    is $r->{status}, 200, 'a script runs';
    my $e = env_of($r);
    is $e->{SCRIPT_NAME}, '/cgi-bin/env.cgi', 'SCRIPT_NAME: the mount and the script';
    is $e->{PATH_INFO}, '/a/b c', 'PATH_INFO: the rest, decoded';
    is $e->{PATH_TRANSLATED}, "$root/a/b c", 'PATH_TRANSLATED through the document root';
    is $e->{QUERY_STRING}, 'x=1&y=2', 'QUERY_STRING as sent';
    is $e->{REQUEST_URI}, '/cgi-bin/env.cgi/a/b%20c?x=1&y=2', 'REQUEST_URI as sent';
    is $e->{SCRIPT_FILENAME}, "$root/env.cgi", 'SCRIPT_FILENAME';
    is $e->{GATEWAY_INTERFACE}, 'CGI/1.1', 'GATEWAY_INTERFACE';
    is $e->{SERVER_NAME}, 'example.org', 'SERVER_NAME from Host';
    is $e->{REMOTE_ADDR}, '127.0.0.1', 'REMOTE_ADDR';
    is $e->{cwd}, $root, "the script runs in its own directory";
    ok !exists $e->{$_}, "no $_" for qw(MOD_PERL REMOTE_HOST HTTP_PROXY HTTP_AUTHORIZATION KT_DIR);
    like $e->{SERVER_SOFTWARE}, qr{^Kamado/}, 'SERVER_SOFTWARE';

    my $post = raw_request($server, "POST /cgi-bin/env.cgi HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        . "Content-Length: 7\r\nProxy: http://evil/\r\nAuthorization: Basic eA==\r\nConnection: close\r\n\r\nname=ab");
    $e = env_of(parse_response($post));
    is $e->{body}, 'name=ab', 'STDIN is the request body';
    is $e->{CONTENT_LENGTH}, 7, 'CONTENT_LENGTH';
    is $e->{CONTENT_TYPE}, 'application/x-www-form-urlencoded', 'CONTENT_TYPE';
    ok !exists $e->{HTTP_PROXY}, 'a Proxy header never becomes HTTP_PROXY (httpoxy)';
    ok !exists $e->{HTTP_AUTHORIZATION}, 'Authorization is not passed, as with Apache';

    $r = get('/cgi-bin/sub/');
    is $r->{body}, 'index of sub /cgi-bin/sub/index.cgi', 'a directory runs its index script';
    $r = get('/cgi-bin/sub?q=1');
    is $r->{status}, 301, 'a directory without its slash: 301';
    is $r->{headers}{location}, '/cgi-bin/sub/?q=1', 'to the directory with its slash';
    is get('/cgi-bin/noindex/')->{status}, 403, 'a directory without an index: 403';
    is get('/cgi-bin/nothing.cgi')->{status}, 404, 'a missing script: 404';
    is get('/cgi-bin/style.css/extra')->{status}, 500, 'path info after a file that is not executable: 500';
    is get('/cgi-bin/.htpasswd')->{status}, 403, 'a dotfile: 403';
    # (.. encoded is resolved as Apache resolves it, before the mapping)
    is get('/cgi-bin/sub/%2e%2e/env.cgi')->{status}, 200, '.. encoded: a step up inside the site';
    is get('/cgi-bin/%2e%2e/%2e%2e/etc/passwd')->{status}, 400, '.. encoded above the root: 400';
    is get('/cgi-bin/escape.txt')->{status}, 403, 'a symlink out of the root: 403';
    is get('/cgi-bin/etc/hostname')->{status}, 403, 'a file under a symlinked directory out of the root: 403';
    like $server->log, qr{\Q$root\E/escape\.txt: a symbolic link to \S+, outside \S+: not followed}, '... logged, with the link\'s target';
    is get('/cgi-bin/inner/index.cgi')->{status}, 200, 'a symlink that stays inside the root is followed';
    is get('/cgi-bin/env.cgi%00.txt')->{status}, 400, 'a NUL in the path: 400 from the server, before any script';
    is get('/cgi-bin/sub/%252e%252e/env.cgi')->{status}, 404, '.. encoded twice is a name, not a step up: 404';

    # (static files are t/cgi-runner/docroot.t's: under --cgi-bin every file is a script)
    $r = get('/cgi-bin/style.css');
    is $r->{status}, 500, 'a file that is not executable: 500, as Apache';
    unlike $r->{body}, qr/color/, 'never its bytes';
    like $server->log, qr{\Q$root/style.css\E: not executable}, 'the log names it';
    unlike get('/cgi-bin/env.cgi')->{body}, qr/Cwd::getcwd/, 'a script is run, its source never served';

    $r = get('/cgi-bin/status.cgi');
    is $r->{status}, 404, 'Status: sets the status';
    is $r->{body}, 'missing', 'with the body';
    $r = get('/cgi-bin/away.cgi');
    is $r->{status}, 302, 'Location: with an absolute URL: 302';
    is $r->{headers}{location}, 'http://example.com/x', 'to it';
    $r = get('/cgi-bin/inside.cgi');
    is $r->{status}, 200, 'Location: with a local path: an internal redirect';
    $e = env_of($r);
    is_deeply [@$e{qw(PATH_INFO QUERY_STRING REQUEST_METHOD)}], ['/via', 'redirected=1', 'GET'], 'serving that path';
    for (['bad-head.cgi', 'malformed header from script. Bad header: hello before headers'],
         ['silent.cgi', 'end of script output before headers'],
         ['dies.cgi', 'end of script output before headers']) {
        my ($script, $log) = @$_;
        is get("/cgi-bin/$script")->{status}, 500, "$script: 500";
        like $server->log, qr{\Q$root/$script\E: \Q$log\E}, "$script: the log says why, naming the script";
    }
    like $server->log, qr{^\Q$root\E/dies\.cgi \[[^\]]+\]: broken at the start$}m,
        "a script's STDERR goes to the log, with its path and the request id";
    $r = get('/cgi-bin/nph-raw.cgi');
    is $r->{status}, 202, 'nph-: the status line of the script';
    is $r->{headers}{'x-nph'}, 'yes', 'and its headers';
    is $r->{body}, 'raw', 'and its body';
    is get('/cgi-bin/system.cgi')->{body}, "from a child\nafter\n", "system()'s output reaches the client (real fds)";
    get('/cgi-bin/warns.cgi');
    like $server->log, qr{^\Q$root\E/warns\.cgi \[[^\]]+\]: something odd$}m, 'warn goes to the log, with its path';

    # streaming: the first line arrives while the script still runs; the
    # in-process modes collect the output and send it when the script ends
    my $flag = "$site/go-$mode";
    my $c = $server->connect;
    syswrite $c, "GET /cgi-bin/stream.cgi?$flag HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    my $got = '';
    my $streams = $mode eq 'exec' || $mode eq 'fork';
    my $first = eventually(sub {
        vec(my $rin = '', fileno $c, 1) = 1;
        sysread $c, $got, 4096, length $got if select $rin, undef, undef, 0.05;
        $got =~ /first\n/;
    }, $streams ? 10 : 1);
    if ($streams) {
        ok $first, 'output is streamed as the script prints it';
        unlike $got, qr/second/, 'before the script has finished';
    } else {
        ok !$first && $got eq '', 'in-process: nothing is sent before the script ends (documented)';
    }
    open my $go, '>', $flag or die;
        close $go;
    ok eventually(sub { sysread($c, $got, 4096, length $got); $got =~ /first\n.*second/s }, 10), "then the rest";

    is get('/elsewhere')->{body}, 'the psgi app at /elsewhere', 'beside the PSGI app at /';
    is $server->stop, 0, 'TERM: exit 0';

    my $alone = start_server(no_app => 1, args => ['--cgi-bin', "/legacy=$root", '--cgi-mode', $mode, '--cgi-ext', 'cgi,txt']);
    my $raw = raw_request($alone, "GET /legacy/env.cgi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    like $raw, qr{^SCRIPT_NAME=/legacy/env\.cgi$}m, '--cgi-bin /PREFIX=DIR, without a PSGI app';
    like raw_request($alone, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), qr{^HTTP/1\.1 404 }, 'nothing else is served';
    like raw_request($alone, "GET /legacy/noindex/readme.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        qr{^HTTP/1\.1 500 }, 'a .txt file under --cgi-bin is a script (this one is not executable: 500)';
    is $alone->stop, 0, 'TERM: exit 0';
}
# the app alone (under another server): a NUL in PATH_INFO is no file
require Kamado::CGI;
my $alone_app = Kamado::CGI->new(root => $root)->to_app;
is $alone_app->({ PATH_INFO => "/env.cgi\0.txt", SCRIPT_NAME => '/cgi-bin', REQUEST_METHOD => 'GET' })->[0], 404,
    'Kamado::CGI: a NUL in PATH_INFO is 404';
done_testing;
