# A CGI script anyone may write, or one in a directory anyone may write,
# is not run, as suexec refuses it: 500 and a log line naming the script
# and what is writable, in every mode and under --cgi-docroot too. Made
# safe again, it runs.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request eventually);
use Kamado::Test::HTTP qw(parse_response);
use Kamado::Test::CGI qw(put_script);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/is writable by anyone \(as suexec, such a script is refused\)/);

my $root = File::Temp::tempdir(CLEANUP => 1);
chmod 0755, $root or die $!;
mkdir "$root/sub" or die $!;
chmod 0755, "$root/sub" or die $!;
my $script = "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\nran};\n";
put_script($root, 'top.cgi', $script);
put_script("$root/sub", 'x.cgi', $script);
sub get {
    my ($server, $path) = @_;
    my $raw = raw_request($server, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, body => '' };
}

for my $mode (qw(fork exec registry perlrun)) {
    my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    is get($server, '/cgi-bin/sub/x.cgi')->{body}, 'ran', "$mode: a safe script runs";

    chmod 0757, "$root/sub/x.cgi" or die $!;
    my $r = get($server, '/cgi-bin/sub/x.cgi');
    is $r->{status}, 500, "$mode: a world-writable script: 500";
    unlike $r->{body}, qr/ran/, "$mode: not run";
    ok eventually(sub { $server->log =~ m{\Q$root\E/sub/x\.cgi: not run: it is writable by anyone} }),
        "$mode: the log names it";
    chmod 0755, "$root/sub/x.cgi" or die $!;

    chmod 0777, "$root/sub" or die $!;
    $r = get($server, '/cgi-bin/sub/x.cgi');
    is $r->{status}, 500, "$mode: in a world-writable directory: 500";
    ok eventually(sub { $server->log =~ m{\Q$root\E/sub/x\.cgi: not run: \Q$root\E/sub is writable by anyone} }),
        "$mode: the log names the script and the directory";
    is get($server, '/cgi-bin/top.cgi')->{body}, 'ran', "$mode: a script beside it, not under it, runs";
    chmod 0755, "$root/sub" or die $!;

    chmod 01777, $root or die $!;
    is get($server, '/cgi-bin/top.cgi')->{status}, 500, "$mode: the CGI directory itself world-writable (sticky too): 500";
    chmod 0755, $root or die $!;
    is get($server, '/cgi-bin/sub/x.cgi')->{body}, 'ran', "$mode: all made safe again, it runs";
    is $server->stop, 0, "$mode: the server stops cleanly";
}

my $server = start_server(no_app => 1, args => ['--cgi-docroot', $root]);
chmod 0777, "$root/sub" or die $!;
is get($server, '/sub/x.cgi')->{status}, 500, '--cgi-docroot: a script in a world-writable directory: 500';
chmod 0755, "$root/sub" or die $!;
is get($server, '/sub/x.cgi')->{body}, 'ran', '--cgi-docroot: made safe, it runs';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
