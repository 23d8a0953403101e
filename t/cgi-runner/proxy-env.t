# --trusted-proxy and --proxy-protocol reach a CGI script's environment,
# in every --cgi-mode, as mod_remoteip's do under Apache: REMOTE_ADDR and
# REMOTE_PORT are the client's, X-Forwarded-Proto: https gives HTTPS=on
# and REQUEST_SCHEME https, SERVER_PORT and SERVER_NAME the forwarded
# port and host (--forwarded-host).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test::Proxy qw(start_proxied ask request proxy_v1);
use Kamado::Test::HTTP qw(parse_response);

my $root = File::Temp::tempdir(CLEANUP => 1);
open my $fh, '>', "$root/env.cgi" or die $!;
print $fh <<'CGI';
#!/usr/bin/perl
print "Content-Type: text/plain\n\n";
print "$_=", $ENV{$_} // '(none)', "\n"
    for qw(REMOTE_ADDR REMOTE_PORT HTTPS REQUEST_SCHEME SERVER_PORT SERVER_NAME HTTP_HOST HTTP_X_FORWARDED_FOR);
CGI
close $fh;
chmod 0755, "$root/env.cgi";

sub cgi_env {
    my ($port, $bytes) = @_;
    my (undef, $got) = ask($port, $bytes);
    my $res = parse_response($got);
    return undef unless $res && $res->{status} == 200;
    return { map { split /=/, $_, 2 } split /\n/, $res->{body} };
}

for my $mode (qw(fork exec registry perlrun)) {
    my $server = start_proxied(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode, '--trusted-proxy', '127.0.0.1', '--forwarded-host']);
    my $get = sub { my $r = request(@_); $r =~ s{GET /who }{GET /cgi-bin/env.cgi }; $r };

    my $env = cgi_env($server->port, $get->('X-Forwarded-For' => '203.0.113.9:4711, 127.0.0.1',
        'X-Forwarded-Proto' => 'https', 'X-Forwarded-Host' => 'www.example.com'));
    ok $env, "$mode: the script ran";
    is_deeply [@$env{qw(REMOTE_ADDR REMOTE_PORT HTTPS REQUEST_SCHEME SERVER_PORT SERVER_NAME HTTP_HOST)}],
        ['203.0.113.9', 4711, 'on', 'https', 443, 'www.example.com', 'www.example.com'],
        "$mode: a trusted peer's X-Forwarded-*: REMOTE_ADDR, REMOTE_PORT, HTTPS, REQUEST_SCHEME, SERVER_PORT, SERVER_NAME, HTTP_HOST";
    is $env->{HTTP_X_FORWARDED_FOR}, '203.0.113.9:4711, 127.0.0.1', "$mode: the field itself is passed, as Apache does";

    $env = cgi_env($server->{proxy_port}, proxy_v1('198.51.100.8', '192.0.2.1', 40000, 80) . $get->());
    is_deeply $env && [@$env{qw(REMOTE_ADDR REMOTE_PORT HTTPS)}], ['198.51.100.8', 40000, '(none)'],
        "$mode: a PROXY header's source: REMOTE_ADDR, REMOTE_PORT; no HTTPS";
}
done_testing;
