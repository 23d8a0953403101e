# The in-process modes' overrides of require, do, exit, caller and exec
# (CORE::GLOBAL::*) are installed in a worker only once it runs a script
# in an in-process mode: a server whose scripts all run in fork or exec
# mode leaves perl's built-ins alone in its workers. Seen by a PSGI app
# mounted beside --cgi-bin (it runs in the worker itself; a fork-mode
# script runs in a zygote's fork).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server raw_request);
use Kamado::Test::HTTP qw(parse_response);

my $root = File::Temp::tempdir(CLEANUP => 1);
sub put {
    my ($name, $content) = @_;
    open my $fh, '>', "$root/$name" or die "$name: $!";
    print $fh $content;
    close $fh;
    chmod 0755, "$root/$name";
}
put('hello.cgi', "print qq{Content-Type: text/plain\\n\\nhello from \$\$};\n");
my $app = 'sub { [200, ["Content-Type" => "text/plain"],
    [join ",", map { "$_=" . (defined &{"CORE::GLOBAL::$_"} ? 1 : 0) } qw(exit require do caller exec)]] }';
my $server;
sub get {
    my ($path) = @_;
    my $raw = raw_request($server, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return parse_response($raw) // { status => 0, raw => $raw };
}
my $none = 'exit=0,require=0,do=0,caller=0,exec=0';
my $all = 'exit=1,require=1,do=1,caller=1,exec=1';

for my $mode (qw(fork exec)) {
    $server = start_server(app => $app, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $r = get('/cgi-bin/hello.cgi');
    is $r->{status}, 200, "$mode: a script runs";
    like $r->{body}, qr/\Ahello from \d+\z/, "$mode: its output";
    is get('/app')->{body}, $none, "$mode mode only: no CORE::GLOBAL overrides in the worker";
    $server->stop;
}

# a .kamado-cgi asking for registry: installed when that script first runs
put('.kamado-cgi', "mode registry inside.cgi\n");
put('inside.cgi', "print qq{Content-Type: text/plain\\n\\ninside};\n");
$server = start_server(app => $app, args => ['--cgi-bin', $root, '--cgi-mode', 'fork']);
is get('/cgi-bin/hello.cgi')->{status}, 200, 'fork mode';
is get('/app')->{body}, $none, 'none before a registry script ran';
is get('/cgi-bin/inside.cgi')->{body}, 'inside', 'the registry script runs';
is get('/app')->{body}, $all, 'installed once it ran';
$server->stop;

# auto (the default) may choose an in-process mode for any script: the
# overrides are there before any script compiles
$server = start_server(app => $app, args => ['--cgi-bin', $root]);
is get('/app')->{body}, $all, 'auto mode: installed from the start';
$server->stop;

$server = start_server(app => $app, args => ['--cgi-bin', $root, '--cgi-mode', 'registry']);
is get('/cgi-bin/hello.cgi')->{status}, 200, 'registry mode: a script runs';
is get('/app')->{body}, $all, 'registry mode: installed';
$server->stop;
done_testing;
