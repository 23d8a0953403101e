# Modes registry and perlrun: a package-less data file that a script
# requires by a bare name through @INC at run time (t/cgi/b12: AWStats'
# lib/*.pm) loads on every run, as under CGI, where each request is a new
# process: its globals are the data's, counted once, run after run and in
# every worker; a changed data file is read again.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Cwd ();
use File::Copy ();
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(get_script run_cgi parse_cgi_output put_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
mkdir "$root/b12-lib" or die;
File::Copy::copy('t/cgi/b12-require-inc-data.cgi', "$root/b12-require-inc-data.cgi") or die;
File::Copy::copy('t/cgi/b12-lib/b12-engines.pm', "$root/b12-lib/b12-engines.pm") or die;
chmod 0755, "$root/b12-require-inc-data.cgi";

# what plain CGI gives, every time
sub reference {
    my ($q) = @_;
    my $run = run_cgi(script => "$root/b12-require-inc-data.cgi", method => 'GET', query => $q);
    return parse_cgi_output($run->{stdout}, script => $run->{script})->{body};
}
like reference('r1'), qr/^engines=3\norder=google bing duckduckgo\nloads=1\n/, 'plain CGI: the data, once';

for my $mode (qw(registry perlrun)) {
    my $server = start_server(no_app => 1, workers => 2, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    # six runs over two workers: each worker runs it at least twice
    my @got = map { get_script($server, "b12-require-inc-data.cgi?q$_") } 1 .. 6;
    for my $i (0 .. $#got) {
        is $got[$i]{status}, 200, "$mode: run " . ($i + 1) . ': 200';
        is $got[$i]{body}, reference('q' . ($i + 1)), "$mode: run " . ($i + 1) . ': as under plain CGI';
    }
    # a changed data file: read again
    my $data = do { local $/; open my $fh, '<', "$root/b12-lib/b12-engines.pm" or die; <$fh> };
    put_script($root, 'b12-lib/b12-engines.pm', $data =~ s/duckduckgo => 'DuckDuckGo'/duckduckgo => 'DDG', qwant => 'Qwant'/r);
    my %bodies = map { (get_script($server, "b12-require-inc-data.cgi?c$_")->{body} =~ s/query=\w+\n//r => 1) } 1 .. 4;
    is_deeply [keys %bodies], [reference('c') =~ s/query=\w+\n//r], "$mode: a changed data file is read again";
    put_script($root, 'b12-lib/b12-engines.pm', $data);
    is $server->stop, 0, "$mode: the server stops cleanly";
}
done_testing;
