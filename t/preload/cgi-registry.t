# --preload-cgi in registry mode: a script is compiled in the generation
# before the workers fork (its BEGIN block sees the generation's pid, and
# runs once, before any request), so no worker compiles it on its first
# request; without the option each worker compiles it on its first
# request. With --workers 0 it is compiled before the one process serves.
# Scripts added or changed after the start are compiled when asked for.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $begins = "$root/begins";
put_script($root, 'pid.cgi', <<"CGI");
my \$compiled_in;
BEGIN { \$compiled_in = \$\$; open my \$fh, '>>', '$begins' or die; print \$fh "\$\$\\n"; close \$fh }
print "Content-Type: text/plain\\n\\ncompiled=\$compiled_in run=\$\$";
CGI
put_script($root, 'edit.cgi', "print qq{Content-Type: text/plain\\n\\none};\n");
sub begins { open my $fh, '<', $begins or return (); chomp(my @pids = <$fh>); @pids }

for my $case ([preloaded => 1], [lazily => 0]) {
    my ($name, $preload) = @$case;
    unlink $begins;
    my $server = start_server(no_app => 1, workers => 2,
        args => ['--cgi-bin', $root, '--cgi-mode', 'registry', ($preload ? '--preload-cgi' : ())]);
    my ($generation) = $server->generations;
    if ($preload) {
        is_deeply [begins()], [$generation], "$name: compiled once, in the generation, before any request";
    } else {
        is_deeply [begins()], [], "$name: nothing compiled before a request";
    }
    my $res = get_script($server, 'pid.cgi');
    my ($compiled, $run) = $res->{body} =~ /\Acompiled=(\d+) run=(\d+)\z/ or diag $res->{body};
    ok((grep { $_ == $run } $server->workers), "$name: run in a worker");
    if ($preload) {
        is $compiled, $generation, "$name: BEGIN saw the generation's pid, not the worker's";
        is_deeply [begins()], [$generation], "$name: the first request compiled nothing";
        # a preloaded script changed after the start is compiled again
        put_script($root, 'edit.cgi', "print qq{Content-Type: text/plain\\n\\ntwo, changed};\n");
        my %seen = map { (get_script($server, 'edit.cgi')->{body} => 1) } 1 .. 6;
        is_deeply [keys %seen], ['two, changed'], "$name: a preloaded script changed: compiled again, in every worker";
        put_script($root, 'added.cgi', "print qq{Content-Type: text/plain\\n\\nadded};\n");
        is get_script($server, 'added.cgi')->{body}, 'added', "$name: a script added after the start";
    } else {
        is $compiled, $run, "$name: BEGIN saw the worker's pid";
        is_deeply [begins()], [$run], "$name: the first request compiled it";
    }
    is $server->stop, 0, "$name: stops cleanly";
}

# --workers 0: the one process compiles it before it serves
unlink $begins;
my $single = start_server(no_app => 1, workers => 0, args => ['--cgi-bin', $root, '--cgi-mode', 'registry', '--preload-cgi']);
is_deeply [begins()], [$single->pid], '--workers 0: compiled in the serving process before any request';
my ($compiled, $run) = get_script($single, 'pid.cgi')->{body} =~ /\Acompiled=(\d+) run=(\d+)\z/;
is $run, $single->pid, '--workers 0: served by that process';
is_deeply [begins()], [$single->pid], '--workers 0: the first request compiled nothing';
is $single->stop, 0, '--workers 0: stops cleanly';
done_testing;
