# --preload-cgi follows each script's mode: in fork mode every worker
# starts the script's zygote before it accepts (one compile per worker,
# none on the first request); a perlrun script is compiled once in the
# generation (the modules it uses loaded there); an exec-mode script is
# not compiled at all before it is asked for.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
for my $name (qw(forked perlrun exec)) {
    put_script($root, "$name.cgi", <<"CGI");
BEGIN { open my \$fh, '>>', '$root/$name.begins' or die; print \$fh "\$\$\\n"; close \$fh }
print "Content-Type: text/plain\\n\\n$name";
CGI
}
put_script($root, '.kamado-cgi', "mode fork\nmode perlrun perlrun.cgi\nmode exec exec.cgi\n");
sub begins { open my $fh, '<', "$root/$_[0].begins" or return (); chomp(my @pids = <$fh>); @pids }
sub parent { open my $fh, '<', "/proc/$_[0]/stat" or return 0; (<$fh> =~ /\) \S+ (\d+)/)[0] }

my $server = start_server(no_app => 1, workers => 2, args => ['--cgi-bin', $root, '--preload-cgi']);
my @workers = sort $server->workers;
my ($generation) = $server->generations;
ok eventually(sub { begins('forked') == 2 }), 'fork mode: compiled twice before any request'
    or diag join ' ', begins('forked');
is_deeply [sort map { parent($_) } begins('forked')], \@workers, "fork mode: by a zygote of each worker";
is get_script($server, 'forked.cgi')->{body}, 'forked', 'fork mode: served';
is scalar(my @after = begins('forked')), 2, 'fork mode: the first request compiled nothing';

is_deeply [begins('perlrun')], [$generation], 'perlrun: compiled once in the generation before any request';
is get_script($server, 'perlrun.cgi')->{body}, 'perlrun', 'perlrun: served';

is_deeply [begins('exec')], [], 'exec mode: not compiled before it is asked for';
is get_script($server, 'exec.cgi')->{body}, 'exec', 'exec mode: served';
is scalar(my @exec = begins('exec')), 1, 'exec mode: compiled by its request';
is $server->stop, 0, 'stops cleanly';
done_testing;
