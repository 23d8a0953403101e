# kamado --reload: an edit that does not compile leaves the old code
# serving and puts the error, with its file and line, in the log; the
# next edit, the fix, is served.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::Load;
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/generation \d+ failed to start|generation \d+ keeps serving/);

my $dir = File::Temp->newdir;
sub spit {
    my ($text) = @_;
    open my $fh, '>', "$dir/app.psgi" or die $!;    # in place, as many editors save
    print $fh $text;
    close $fh;
}
my $app = sub { qq{sub { [200, ["Content-Type" => "text/plain"], ["$_[0]"]] }\n} };
spit($app->('good'));
my $server = start_server(app_file => "$dir/app.psgi", workers => 1, args => ['--reload']);
sub body {
    my $res = read_response($server->send_get('/'));
    return $res && $res->{status} == 200 ? $res->{body} : 'error';
}
is body(), 'good', 'the first version';
my $load = Kamado::Test::Load->start($server, clients => 2);

spit("sub { [200, [], ['broken'\n");
wait_until { $server->log =~ /generation 2 failed to start \(can't load .*app\.psgi.*line \d.*\); generation 1 keeps serving/s }
    'the compile error is logged, with the file and line';
is body(), 'good', 'the old code keeps serving';
ok $load->wait_for_requests(100), 'the load goes on';

spit($app->('fixed'));
wait_until { body() eq 'fixed' } 'the fix is served';
$load->stop_ok('requests meanwhile', 100);
is $server->stop, 0, 'TERM: exit 0';
done_testing;
