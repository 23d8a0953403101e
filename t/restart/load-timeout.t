# A new generation stuck while it loads the app (a BEGIN block that never
# ends) is killed after --load-timeout, with a line in the log, while the
# old generation serves throughout; the next HUP then loads the fixed app.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response wait_until);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/not loaded within --load-timeout/);

my $dir = File::Temp::tempdir(CLEANUP => 1);
my $app = "$dir/app.psgi";
sub write_app {
    my ($version, $begin) = @_;
    open my $fh, '>', "$app.new" or die;
    print $fh ($begin // ''), "sub { [200, ['Content-Type' => 'text/plain'], ['$version'] ] }\n";
    close $fh;
    rename "$app.new", $app or die;
}
write_app('v1');
my $server = start_server(app_file => $app, workers => 1, args => ['--load-timeout', 2]);

sub version {
    my $res = read_response($server->send_get('/'), timeout => 5) or return 'error';
    return $res->{status} == 200 ? $res->{body} : "status $res->{status}";
}

is version(), 'v1', 'generation 1 serves v1';
write_app('v2', "BEGIN { sleep 1000 }\n");
kill HUP => $server->pid;
wait_until { $server->generations == 2 } 'HUP: generation 2 is loading';
kill HUP => $server->pid;
wait_until { $server->log =~ /this HUP is ignored/ } 'a HUP while it loads is ignored';
is version(), 'v1', 'generation 1 serves while generation 2 hangs';
wait_until { $server->log =~ /generation 2 failed to start \(killed: not loaded within --load-timeout 2 s\); generation 1 keeps serving/ }
    'past --load-timeout generation 2 is killed, and the log says so';
wait_until { $server->generations == 1 } 'only generation 1 is left';
is version(), 'v1', 'generation 1 still serves';

write_app('v3');
kill HUP => $server->pid;
wait_until { $server->log =~ /generation 3 serves/ } 'the next HUP loads again';
wait_until { version() eq 'v3' } 'the new code serves';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
