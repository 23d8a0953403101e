# --worker-init runs once in each worker after it is forked and before it
# serves (its pid, not the generation's), for workers started later too,
# and in the one process of --workers 0; as Perl code or as a module
# (loaded in the generation, its worker_init called in each worker).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually wait_until);

my $dir = File::Temp::tempdir(CLEANUP => 1);
mkdir "$dir/lib" or die; mkdir "$dir/lib/My" or die;
open my $fh, '>', "$dir/lib/My/KamadoInit.pm" or die;
print $fh <<"PM";
package My::KamadoInit;
open my \$fh, '>>', '$dir/loaded' or die; print \$fh "\$\$\\n"; close \$fh;
sub worker_init { my (\$class) = \@_; open my \$fh, '>>', '$dir/inits' or die; print \$fh "\$\$ \$class\\n"; \$main::INIT = \$\$ }
1;
PM
close $fh;
my $code = qq{open my \$fh, '>>', '$dir/inits' or die; print \$fh "\$\$ code\\n"; close \$fh; \$main::INIT = \$\$};
my $app = 'sub { [200, ["Content-Type" => "text/plain"], ["init=" . ($main::INIT // "none") . " pid=$$"]] }';
sub lines { open my $fh, '<', "$dir/$_[0]" or return (); chomp(my @l = <$fh>); @l }

for my $case (['code', $code, 'code'], ['module', 'My::KamadoInit', 'My::KamadoInit']) {
    my ($name, $spec, $tag) = @$case;
    unlink "$dir/inits", "$dir/loaded";
    my $server = start_server(workers => 2, app => $app, args => ['-I', "$dir/lib", '--worker-init', $spec]);
    ok eventually(sub { lines('inits') == 2 }), "$name: run twice for two workers" or diag join ',', lines('inits');
    my @workers = sort $server->workers;
    is_deeply [sort(lines('inits'))], [map { "$_ $tag" } @workers], "$name: once in each worker, with its pid";
    my $res = read_response($server->send_get('/'));
    my ($init, $pid) = ($res ? $res->{body} : '') =~ /\Ainit=(\S+) pid=(\d+)\z/;
    is $init, $pid, "$name: run in the serving process before it served";
    is_deeply [lines('loaded')], [$server->generations], "$name: the module was loaded in the generation" if $name eq 'module';
    kill KILL => $workers[0];
    wait_until { my %w = map { $_ => 1 } $server->workers; keys %w == 2 && !$w{ $workers[0] } } "$name: a worker killed is replaced";
    my ($new) = grep { $_ != $workers[1] } $server->workers;
    wait_until { grep { $_ eq "$new $tag" } lines('inits') } "$name: and the new worker ran it";
    is scalar(my @l = lines('inits')), 3, "$name: once, and no other worker ran it again";
    is $server->stop, 0, "$name: stops cleanly";
}

unlink "$dir/inits";
my $single = start_server(workers => 0, app => $app, args => ['--worker-init', $code]);
is_deeply [lines('inits')], [$single->pid . ' code'], '--workers 0: run once in the serving process before it serves';
my $res = read_response($single->send_get('/'));
is $res && $res->{body}, 'init=' . $single->pid . ' pid=' . $single->pid, '--workers 0: the app sees what it set';
is $single->stop, 0, '--workers 0: stops cleanly';
done_testing;
