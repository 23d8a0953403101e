# What a worker keeps per CGI script, at most so many, the least recently
# used let go first (Kamado::CGI::LRU): fork mode's zygotes
# ($Kamado::CGI::Mode::Fork::MAX_ZYGOTES) and registry's compiled scripts
# ($Kamado::CGI::InProcess::Scripts::MAX_COMPILED), each set to 2 here.
# A BEGIN block says when a script compiles; a zygote let go exits.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server wait_until);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::Procs qw(live_children_of);

my $dir = File::Temp::tempdir(CLEANUP => 1);
for my $name (qw(a b c)) {
    put_script(
        $dir, "$name.cgi",
        "BEGIN { print STDERR qq{compiling $name\\n} }\n" . "print qq{Content-Type: text/plain\\n\\n$name};\n"
    );
}

my %limit =
    (fork => 'Kamado::CGI::Mode::Fork::MAX_ZYGOTES', registry => 'Kamado::CGI::InProcess::Scripts::MAX_COMPILED');
for my $mode (sort keys %limit) {
    (my $module = $limit{$mode}) =~ s/::\w+\z//;
    my $server = start_server(
        app => "require $module; \$$limit{$mode} = 2; sub { [404, [], []] }",
        workers => 1,
        args => ['--cgi-bin', $dir, '--cgi-mode', $mode]
    );
    my @bodies = map { get_script($server, "$_.cgi")->{body} } qw(a b a c a b);
    is "@bodies", 'a b a c a b', "$mode: six requests to three scripts";
    my %compiles;
    $compiles{$_}++ for $server->log =~ /compiling (\w)/g;
    is_deeply \%compiles, { a => 1, b => 2, c => 1 },
        "$mode: two kept; b, the least recently used, went for c and was compiled again";
    if ($mode eq 'fork') {
        my ($worker) = $server->workers;
        wait_until { live_children_of($worker) == 2 } 'fork: the zygote let go has exited: two left under the worker';
    }
    is $server->stop, 0, "$mode: stopped";
}

done_testing;
