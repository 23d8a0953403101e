# A worker keeps what mapping a URL to a script found (Kamado::CGI::call)
# and looks again, on each request, only at what can change: one worker
# here, so that every request after the first meets that cache. A
# changed script runs changed, a removed one is 404, a new or edited
# .kamado-cgi applies at once, a new index script before the one served
# takes over, and a script or directory made a symbolic link out of the
# root is refused after having been served. And kamado's own dispatcher
# between the CGI directory and the app (Kamado::Runner::mount).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::CGI qw(put_script get_script);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/a symbolic link to \S+, outside \S+: not followed/);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $outside = File::Temp::tempdir(CLEANUP => 1);
my $server = start_server(app => 'sub { [200, [], ["app: $_[0]{SCRIPT_NAME}|$_[0]{PATH_INFO}"]] }',
    workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'registry']);
sub put { put_script($root, @_) }
sub get { get_script($server, @_) }
sub says { "print qq{Content-Type: text/plain\\n\\n$_[0] \$ENV{SCRIPT_NAME}|\$ENV{PATH_INFO}};\n" }
my $where = "print qq{Content-Type: text/plain\\n\\n}, __PACKAGE__ eq 'main' ? 'own process' : 'in-process';\n";

put('a.cgi', says('one'));
is get('a.cgi')->{body}, 'one /cgi-bin/a.cgi|', 'a script';
is get('a.cgi/x/y')->{body}, 'one /cgi-bin/a.cgi|/x/y', 'with path info';
is get('a.cgi')->{body}, 'one /cgi-bin/a.cgi|', 'again';
put('a.cgi', says('two'));
is get('a.cgi')->{body}, 'two /cgi-bin/a.cgi|', 'changed: the change runs';
is get('a.cgi/x/y')->{body}, 'two /cgi-bin/a.cgi|/x/y', 'with path info too';
unlink "$root/a.cgi" or die;
is get('a.cgi')->{status}, 404, 'removed: 404';
is get('a.cgi/x/y')->{status}, 404, 'with path info too';
put('a.cgi', says('three'));
is get('a.cgi')->{body}, 'three /cgi-bin/a.cgi|', 'back';

# .kamado-cgi: new, edited in place, removed; in the directory and above
mkdir "$root/sub" or die;
put('where.cgi', $where);
put('sub/where.cgi', $where);
is get('where.cgi')->{body}, 'in-process', 'no mode file: --cgi-mode';
is get('sub/where.cgi')->{body}, 'in-process', 'below too';
put('.kamado-cgi', "mode fork\n");
is get('where.cgi')->{body}, 'own process', 'a new .kamado-cgi applies at once';
is get('sub/where.cgi')->{body}, 'own process', 'to the directories below too';
{
    open my $fh, '+<', "$root/.kamado-cgi" or die;
    print $fh "mode registry\nmode fork where.cgi\n";
    close $fh;
}
is get('where.cgi')->{body}, 'own process', 'edited in place: the line for the script';
is get('sub/where.cgi')->{body}, 'in-process', 'and the one for the directory';
put('sub/.kamado-cgi', "mode fork\n");
is get('sub/where.cgi')->{body}, 'own process', "a new one nearer the script wins";
unlink "$root/.kamado-cgi", "$root/sub/.kamado-cgi" or die;
is get('where.cgi')->{body}, 'in-process', 'removed: --cgi-mode again';
is get('sub/where.cgi')->{body}, 'in-process', 'below too';

# index scripts
mkdir "$root/dir" or die;
put('dir/index.pl', says('index.pl'));
is get('dir/')->{body}, 'index.pl /cgi-bin/dir/index.pl|', 'a directory: its index script';
is get('dir/')->{body}, 'index.pl /cgi-bin/dir/index.pl|', 'again';
put('dir/index.cgi', says('index.cgi'));
is get('dir/')->{body}, 'index.cgi /cgi-bin/dir/index.cgi|', 'a new index script before it takes over';
unlink "$root/dir/index.cgi" or die;
is get('dir/')->{body}, 'index.pl /cgi-bin/dir/index.pl|', 'removed: the other one again';

# symbolic links out of the root, after having been served
put_script($outside, 'secret.cgi', says('outside'));
put('s.cgi', says('inside'));
is get('s.cgi')->{body}, 'inside /cgi-bin/s.cgi|', 'a script';
unlink "$root/s.cgi" or die;
symlink "$outside/secret.cgi", "$root/s.cgi" or die;
is get('s.cgi')->{status}, 403, 'made a link out of the root: 403';
mkdir "$root/real" or die;
put('real/s.cgi', says('inside'));
is get('real/s.cgi')->{body}, 'inside /cgi-bin/real/s.cgi|', 'a script in a directory';
# (outside, the same file: a hard link, so that only the link on the way
# tells; a copy where there can be none)
mkdir "$outside/real" or die;
link "$root/real/s.cgi", "$outside/real/s.cgi" or put_script($outside, 'real/s.cgi', says('inside'));
rename "$root/real", "$root/real.old" or die;
symlink "$outside/real", "$root/real" or die;
is get('real/s.cgi')->{status}, 403, 'the directory made a link out of the root: 403';
is get('real/s.cgi/info')->{status}, 403, 'with path info too';
put('in.cgi', says('linked'));
symlink "$root/in.cgi", "$root/link.cgi" or die;
is get('link.cgi')->{body}, 'linked /cgi-bin/link.cgi|', 'a link inside the root';
unlink "$root/link.cgi" or die;
symlink "$outside/secret.cgi", "$root/link.cgi" or die;
is get('link.cgi')->{status}, 403, 'pointed out of the root: 403';

# the dispatcher: /cgi-bin and /cgi-bin/... to the scripts, the rest to the app
like raw_request($server, "GET /cgi-bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    qr{\AHTTP/1\.1 301 .*^Location: /cgi-bin/\r$}ms, '/cgi-bin: the directory, sent to its slash';
like raw_request($server, "GET /cgi-binx/a.cgi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    qr{\r\n\r\napp: \|/cgi-binx/a\.cgi\z}, '/cgi-binx/a.cgi: the app, as it was asked';
like raw_request($server, "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), qr{\r\n\r\napp: \|/x\z}, '/x: the app';
is get('a.cgi')->{body}, 'three /cgi-bin/a.cgi|', 'and the scripts between';

is $server->stop, 0, 'the server stops cleanly';
done_testing;
