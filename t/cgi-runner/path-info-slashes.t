# PATH_INFO as Apache gives it, in every mode: a trailing slash stays
# (/x.cgi/cooking/ is PATH_INFO /cooking/, /x.cgi/ is /), slashes in a row
# are one (MergeSlashes On, Apache's default: in SCRIPT_NAME too),
# escapes are decoded once (%20 is a space, %2520 is %20), and
# PATH_TRANSLATED is the document root joined to it. Scripts tell a
# directory URL by that slash (cvsweb answers one without it with a 301 to
# itself), and CGI.pm's url() is REQUEST_URI less PATH_INFO (Blosxom's
# links). Each path is asked twice: mapped, then from the mapping cache.
# (Each case checked against Apache 2.4.71 with ScriptAlias.)
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);

my $have_cgi_pm = eval { require CGI; 1 };
my $root = File::Temp::tempdir(CLEANUP => 1);
mkdir "$root/sub" or die;
my $env = <<'PERL';
print "Content-Type: text/plain\n\n";
print "$_=", $ENV{$_} // '(unset)', "\n" for qw(SCRIPT_NAME PATH_INFO PATH_TRANSLATED);
print "joined=", ($ENV{DOCUMENT_ROOT} // '') . ($ENV{PATH_INFO} // ''), "\n";
PERL
put_script($root, 'env.cgi', $env);
put_script($root, 'sub/env.cgi', $env);
put_script($root, 'url.cgi', "use CGI; print CGI::header('text/plain'), CGI::url(-absolute => 1), ' ', CGI::path_info();\n");

my $server;
sub get {
    my ($path) = @_;
    my $raw = raw_request($server, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, body => '', headers => {} };
}
sub vars {
    my ($path) = @_;
    my $r = get($path);
    is $r->{status}, 200, "$path: 200";
    my %v = $r->{body} =~ /^(\w+)=(.*)$/mg;
    return \%v;
}
for my $mode (qw(fork exec registry perlrun)) {
    note "mode $mode";
    $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $pass (1, 2) {
        my $v = vars('/cgi-bin/env.cgi/cooking/');
        is $v->{PATH_INFO}, '/cooking/', "pass $pass: /cooking/ keeps its slash";
        is $v->{SCRIPT_NAME}, '/cgi-bin/env.cgi', "pass $pass: SCRIPT_NAME";
        is $v->{PATH_TRANSLATED}, $v->{joined}, "pass $pass: PATH_TRANSLATED: the document root and PATH_INFO";
        like $v->{PATH_TRANSLATED}, qr{/cooking/\z}, "pass $pass: PATH_TRANSLATED keeps the slash too";
        is vars('/cgi-bin/env.cgi/')->{PATH_INFO}, '/', "pass $pass: /x.cgi/: PATH_INFO /";
        is vars('/cgi-bin/env.cgi')->{PATH_INFO}, '(unset)', "pass $pass: /x.cgi: no PATH_INFO";
        is vars('/cgi-bin/env.cgi/cooking/?x=1/')->{PATH_INFO}, '/cooking/', "pass $pass: with a query";
        is vars('/cgi-bin/env.cgi/a//b//')->{PATH_INFO}, '/a/b/', "pass $pass: // in a row: one slash";
        is vars('/cgi-bin/env.cgi//')->{PATH_INFO}, '/', "pass $pass: /x.cgi//: PATH_INFO /";
        $v = vars('/cgi-bin//sub//env.cgi//x');
        is $v->{SCRIPT_NAME}, '/cgi-bin/sub/env.cgi', "pass $pass: // before the script: merged in SCRIPT_NAME";
        is $v->{PATH_INFO}, '/x', "pass $pass: and in PATH_INFO";
        is vars('/cgi-bin/env.cgi/a%20b/c%2520/')->{PATH_INFO}, '/a b/c%20/', "pass $pass: escapes decoded once";
        SKIP: {
            skip 'CGI.pm is not installed (libcgi-pm-perl)', 1 unless $have_cgi_pm;
            is get('/cgi-bin/url.cgi/cooking/')->{body}, '/cgi-bin/url.cgi /cooking/',
                "pass $pass: CGI.pm's url() and path_info()";
        }
    }
    is $server->stop, 0, 'the server stops cleanly';
}
done_testing;
