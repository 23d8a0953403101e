# --worker-init that cannot be used stops kamado at start-up with one line
# naming the option (code that does not compile, a module that does not
# load or has no worker_init); a hook that dies is logged and its worker
# exits: the workers are replaced with a doubling pause and after five
# failures in a row the generation gives up, kamado exits 1 and never
# said it accepts. With --workers 0 a hook that dies stops kamado.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes ();
use Kamado::Test qw(start_server);
use Kamado::Test::CLI qw(run_kamado);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/--worker-init failed/);

my $dir = tempdir(CLEANUP => 1);
mkdir "$dir/lib" or die;
open my $fh, '>', "$dir/lib/KamadoNoInit.pm" or die;
print $fh "package KamadoNoInit; sub other { 1 } 1;\n";
close $fh;
open $fh, '>', "$dir/app.psgi" or die;
print $fh "sub { [200, [], ['x']] }\n";
close $fh;
my @args = ('--listen', '127.0.0.1:0', '-I', "$dir/lib");

for my $case (['code that does not compile', 'my $x = ;', qr/^kamado: --worker-init: the code does not compile: syntax error at --worker-init line \d/],
              ['a missing module', 'KamadoNoSuchModule', qr/^kamado: --worker-init KamadoNoSuchModule: can't load KamadoNoSuchModule: Can't locate/],
              ['a module without worker_init', 'KamadoNoInit', qr/^kamado: --worker-init KamadoNoInit: KamadoNoInit has no worker_init method$/]) {
    my ($name, $spec, $want) = @$case;
    for my $workers (2, 0) {
        my $r = run_kamado({ timeout => 15 }, @args, '--workers', $workers, '--worker-init', $spec, "$dir/app.psgi");
        ok !$r->{timed_out}, "$name, --workers $workers: exits";
        isnt $r->{status}, 0, "$name, --workers $workers: non-zero exit status ($r->{status})";
        like $r->{stderr}, qr/$want/m, "$name, --workers $workers: one line naming the option";
        unlike $r->{stderr}, qr/accepting connections/, "$name, --workers $workers: never served";
    }
}

my $t0 = Time::HiRes::time();
my $server = start_server(workers => 2, no_wait => 1, app => 'sub { [200, [], ["x"]] }',
    args => ['--worker-init', 'die "the database is down\n"']);
my $status = $server->wait_exit(20);
my $took = Time::HiRes::time() - $t0;
is $status >> 8, 1, 'a hook that dies: kamado exits with status 1';
cmp_ok $took, '<', 15, sprintf 'after a bounded time (%.1f s)', $took;
my $log = $server->log;
my @fails = $log =~ /worker \d+: --worker-init failed: the database is down$/mg;
cmp_ok scalar @fails, '>=', 5, scalar(@fails) . ' workers said why they exited';
like $log, qr/giving up: --worker-init failed in \d+ workers in a row/, 'the generation says it gives up, and why';
unlike $log, qr/accepting connections/, 'and never said it accepted connections';

my $r = run_kamado({ timeout => 15 }, @args, '--workers', 0, '--worker-init', 'die "the database is down\n"', "$dir/app.psgi");
isnt $r->{status}, 0, "--workers 0, a hook that dies: non-zero exit status ($r->{status})";
like $r->{stderr}, qr/^kamado: --worker-init failed: the database is down$/m, '--workers 0: saying why';
done_testing;
