# The environment a script compiles in (issue 24, item 6): in registry
# and fork mode, which compile once for many requests, the CGI variables
# no request changes, --cgi-env's among them, and none of a request's (a
# BEGIN block or `use constant` never keeps one user's data for the
# next); in perlrun, which compiles per request, the request's own, as
# under CGI; auto sends a script that reads request data while it
# compiles to perlrun.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'env.cgi', "#!/usr/bin/perl\n"
    . "BEGIN { \$at = join ' ', map { \"\$_=\" . (\$ENV{\$_} // '-') } qw(QUERY_STRING HTTP_COOKIE GATEWAY_INTERFACE SCRIPT_NAME APP_CFG) }\n"
    . "print qq{Content-Type: text/plain\\n\\ncompiled with \$at\\nrun with QUERY_STRING=\$ENV{QUERY_STRING}\\n};\n");
sub get {
    my ($server, $user) = @_;
    my $raw = raw_request($server, "GET /cgi-bin/env.cgi?$user HTTP/1.1\r\nHost: x\r\nCookie: session=$user\r\nConnection: close\r\n\r\n");
    return (parse_response($raw) // { body => '' })->{body};
}
my $fixed = 'GATEWAY_INTERFACE=CGI/1.1 SCRIPT_NAME=/cgi-bin/env.cgi APP_CFG=/etc/app.cfg';
for my $mode (qw(registry fork perlrun auto)) {
    my $server = start_server(no_app => 1, workers => 1,
        args => ['--cgi-bin', $root, '--cgi-mode', $mode, '--cgi-env', 'APP_CFG=/etc/app.cfg']);
    for my $user (qw(alice bob)) {
        my $want = $mode eq 'registry' || $mode eq 'fork'
            ? "compiled with QUERY_STRING=- HTTP_COOKIE=- $fixed\n"
            : "compiled with QUERY_STRING=$user HTTP_COOKIE=session=$user $fixed\n";
        is get($server, $user), $want . "run with QUERY_STRING=$user\n", "$mode: $user";
    }
    like $server->log, qr{env\.cgi runs in perlrun mode: B6 at env\.cgi line 2: reads \$ENV\{QUERY_STRING\} while compiling}, 'auto: perlrun, why'
        if $mode eq 'auto';
    is $server->stop, 0, "$mode: stopped";
}
done_testing;
