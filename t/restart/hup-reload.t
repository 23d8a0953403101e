# HUP loads new code even though the app is preloaded (the module it uses
# changes on disk), under continuous load without a single failed request;
# new code that fails to compile leaves the old generation serving, and
# the error is logged; the next HUP after the fix loads it.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server app_file read_response wait_until);
use Kamado::Test::Load;
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(
    qr/generation \d+ failed to start|generation \d+ keeps serving|Compilation failed in require|BEGIN failed/);

my $lib = File::Temp::tempdir(CLEANUP => 1);
sub version_module {
    my ($source) = @_;
    open my $fh, '>', "$lib/KamadoTestVersion.pm" or die;
    print $fh $source;
    close $fh;
}
version_module("package KamadoTestVersion; our \$V = 'v1'; 1;\n");
my $app = app_file(<<'APP');
use KamadoTestVersion;
sub { [200, ['Content-Type' => 'text/plain'], ["$KamadoTestVersion::V $$"]] }
APP
my $server = start_server(app_file => $app, workers => 2, args => ['-I', $lib]);

sub version {
    my $c = $server->send_get('/');
    my $res = read_response($c) or return 'error';
    return $res->{status} == 200 ? ($res->{body} =~ /^(\S+)/)[0] : "status $res->{status}";
}

# only the new generation answers: 20 answers in a row
sub all_answer {
    my ($want) = @_;
    wait_until { !grep { version() ne $want } 1 .. 20 } "every answer is $want";
}

is version(), 'v1', 'the first generation serves v1';
my @first_generation = $server->generations;
is scalar @first_generation, 1, 'one generation process';
my $load = Kamado::Test::Load->start($server, clients => 2);
my $keepalive = Kamado::Test::Load->start($server, clients => 1, keepalive => 1);

version_module("package KamadoTestVersion; our \$V = 'v2'; 1;\n");
kill HUP => $server->pid;
wait_until { $server->log =~ /generation 2 serves; generation 1 finishes/ } 'HUP: generation 2 serves';
all_answer('v2');
wait_until { !kill 0, $first_generation[0] } 'generation 1 has exited';
# (each client counts in steps of 100)
ok $load->wait_for_requests(300) && $keepalive->wait_for_requests(300), 'the load goes on';

version_module("package KamadoTestVersion; our \$V = 'v3'; 1 +;\n");
kill HUP => $server->pid;
wait_until { $server->log =~ /generation 3 failed to start \(can't load .*syntax error.*\); generation 2 keeps serving/s }
    'HUP with broken code: the error is logged';
like $server->log, qr/KamadoTestVersion\.pm line 1/, 'naming the file and line';
is version(), 'v2', 'generation 2 still serves';
ok $load->wait_for_requests(500) && $keepalive->wait_for_requests(500), 'the load goes on';

version_module("package KamadoTestVersion; our \$V = 'v3'; 1;\n");
kill HUP => $server->pid;
wait_until { $server->log =~ /generation 4 serves/ } 'HUP after the fix: generation 4 serves';
all_answer('v3');
ok $load->wait_for_requests(700) && $keepalive->wait_for_requests(700), 'the load goes on';

$load->stop_ok("new connections during the three HUPs", 101);
$keepalive->stop_ok("keep-alive during the three HUPs", 101);
is $server->stop, 0, 'TERM: exit 0';
done_testing;
