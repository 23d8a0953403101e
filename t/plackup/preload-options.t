# plackup -s Kamado with --startup, --worker-init and --preload-cgi, as
# users run it (a switch as plackup spells it, --enable-preload-cgi): the startup file runs in the generation (before the
# workers fork: they see its globals), the hook in each worker, and the
# CGI scripts are compiled in the generation. The startup file registers
# for the worker_start and worker_exit events (Kamado::Hooks): each
# worker runs them.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test qw(read_response eventually);
use Kamado::Test::CGI qw(put_script);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $dir = tempdir(CLEANUP => 1);
mkdir "$dir/cgi" or die;
open my $fh, '>', "$dir/startup.pl" or die;
print $fh "open my \$fh, '>>', '$dir/startups' or die; print \$fh \"\$\$\\n\"; close \$fh; \$main::STARTUP = 'from startup';\n";
print $fh <<"PL";
use Kamado::Hooks;
sub note { open my \$fh, '>>', '$dir/events' or die; print \$fh "\$\$ \$_[0]\\n"; close \$fh }
Kamado::Hooks->on(worker_start => sub { note('start') });
Kamado::Hooks->on(worker_exit => sub { note("exit \$_[0]") });
PL
close $fh;
put_script("$dir/cgi", 'pid.cgi', <<'CGI');
my $compiled_in; BEGIN { $compiled_in = $$ }
print "Content-Type: text/plain\n\ncompiled=$compiled_in run=$$";
CGI
sub lines { open my $fh, '<', "$dir/$_[0]" or return (); chomp(my @l = <$fh>); @l }

my $port = free_port();
my $server = start_plackup(port => $port, workers => 2,
    args => ['--port', $port, '-E', 'deployment', '--startup', "$dir/startup.pl",
             '--worker-init', qq{open my \$fh, '>>', '$dir/inits' or die; print \$fh "\$\$\\n"},
             '--cgi-bin', "$dir/cgi", '--cgi-mode', 'registry', '--enable-preload-cgi'],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$main::STARTUP $$"]] }');
my @generations = $server->generations;
is_deeply [lines('startups')], \@generations, '--startup: run once, in the generation';
ok eventually(sub { lines('inits') == 2 }), '--worker-init: run for both workers';
is_deeply [sort(lines('inits'))], [sort $server->workers], '--worker-init: in each worker';
my $res = read_response($server->send_get('/'));
like $res && $res->{body}, qr/\Afrom startup \d+\z/, 'the app sees what the startup file set';
$res = read_response($server->send_get('/cgi-bin/pid.cgi'));
my ($compiled, $run) = ($res ? $res->{body} : '') =~ /\Acompiled=(\d+) run=(\d+)\z/;
is $compiled, $generations[0], '--preload-cgi: the script was compiled in the generation';
ok((grep { $_ == $run } $server->workers), 'and runs in a worker');
my @workers = sort $server->workers;
is $server->stop, 0, 'TERM stops plackup cleanly';
is_deeply [sort(lines('events'))], [sort map { ("$_ start", "$_ exit 0") } @workers],
    'Kamado::Hooks->on from the startup file: worker_start and worker_exit in each worker';
done_testing;
