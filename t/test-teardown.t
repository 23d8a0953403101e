# Kamado::Test's teardown: a server whose log has an [error] line that no
# allowed pattern matches fails the test that ran it (as nginx-tests fail
# on [alert] lines); an allowed one does not, nor does a clean log. Run as
# test scripts of their own, their TAP read here.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test ();

my $dir = File::Temp->newdir;

sub run_test {
    my ($name, $body) = @_;
    open my $fh, '>', "$dir/$name.t" or die $!;
    print $fh <<"T";
use strict; use warnings; use lib 't/lib'; use Test::More;
use Kamado::Test qw(start_server read_response allow_errors);
my \$app = 'sub { die "on purpose\\n" if \$_[0]{PATH_INFO} eq "/die"; [200, [], ["ok"]] }';
$body
done_testing;
T
    close $fh;
    my $out = `$^X $dir/$name.t 2>&1`;
    return ($? >> 8, $out);
}

my ($status, $out) = run_test('clean', <<'T');
my $s = start_server(app => $app);
is read_response($s->send_get('/'))->{status}, 200, 'served';
$s->stop;
T
is $status, 0, 'a clean log: the test passes' or diag $out;

($status, $out) = run_test('error', <<'T');
my $s = start_server(app => $app);
is read_response($s->send_get('/die'))->{status}, 500, 'a 500';
$s->stop;
T
isnt $status, 0, 'an [error] line nothing allows: the test fails';
like $out,
    qr/not ok \d+ - no unexpected \[error\] line in the server log\n.*\[error\] worker \d+ .*app died: on purpose/s,
    'naming the line' or diag $out;

($status, $out) = run_test('not-stopped', <<'T');
my $s = start_server(app => $app);
is read_response($s->send_get('/die'))->{status}, 500, 'a 500';
T
isnt $status, 0, 'also when the test never stops its server' or diag $out;

($status, $out) = run_test('allowed-per-server', <<'T');
my $s = start_server(app => $app, allow_errors => [qr/app died: on purpose/]);
is read_response($s->send_get('/die'))->{status}, 500, 'a 500';
$s->stop;
T
is $status, 0, "allowed for the server: the test passes" or diag $out;

($status, $out) = run_test('allowed-per-file', <<'T');
allow_errors(qr/app died: on purpose/);
my $s = start_server(app => $app);
is read_response($s->send_get('/die'))->{status}, 500, 'a 500';
$s->stop;
T
is $status, 0, "allowed for the file: the test passes" or diag $out;
done_testing;
