# The status page shows request lines without their query strings (a
# token, a key, a search are not every local user's to read), on every
# page; --status-query shows them whole.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(eventually read_response);
use Kamado::Test::Status qw(status_server status_get status_json wait_file_app);

my $SECRET = 'token=s3cr3t-9f2e';
for my $case ([hidden => []], [shown => ['--status-query']]) {
    my ($mode, $args) = @$case;
    my $dir = File::Temp->newdir;
    local $ENV{KT_DIR} = "$dir";
    my $server = status_server(workers => 1, app => wait_file_app(), args => $args);
    my $held = $server->send_get("/block?go&$SECRET");
    my ($busy, $s);
    ok eventually(sub { $s = status_json($server); ($busy) = grep { $_->{state} eq 'app' } $s->{workers}->@* }),
        "$mode: the worker in the app" or diag explain $s;
    my $html = status_get($server, '/')->{content};
    my $json = status_get($server, '/status.json')->{content};
    if ($mode eq 'hidden') {
        is $busy->{request}, 'GET /block?', 'by default: the request line, its query hidden';
        unlike $json, qr/s3cr3t/, 'not in the JSON';
        unlike $html, qr/s3cr3t/, 'not in the HTML page';
        like $html, qr{GET /block\?<}, 'the HTML shows the path';
    } else {
        is $busy->{request}, "GET /block?go&$SECRET", '--status-query: the request line whole';
        like $html, qr/s3cr3t/, 'in the HTML page too';
    }
    open my $go, '>', "$dir/go" or die;
    close $go;
    is read_response($held)->{status}, 200, "$mode: the held request answered";
    is $server->stop, 0, "$mode: the server stops cleanly";
}
done_testing;
