# --access-log - writes the lines to standard output (kamado's), in the
# format given; plackup -s Kamado takes the same options.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::Plackup qw(start_plackup free_port plackup);
use Kamado::Test::AccessLog qw(wait_lines parse_combined);

my $app = 'sub { [200, ["Content-Type" => "text/plain"], ["hi"]] }';
plackup();    # (skips the file without plackup: Plack ships it)
{
    # (the test's server sends its stdout where its stderr goes: ->log)
    my $server = start_server(args => ['--access-log', '-', '--access-log-format', 'stdout %>s %b "%r"'], app => $app);
    read_response($server->send_get('/to-stdout'));
    ok eventually(sub { $server->log =~ m{^stdout 200 2 "GET /to-stdout HTTP/1\.1"$}m }, 30), '-: the line on stdout'
        or diag $server->log;
    is $server->stop, 0, 'the server stops cleanly';
}
{
    my $dir = File::Temp->newdir;
    my $log = "$dir/access.log";
    my $port = free_port();
    my $server = start_plackup(port => $port, app => $app,
        args => ['--port', $port, '--host', '127.0.0.1', '--access_log', $log, '--access-log-format', 'common']);
    my $res = read_response($server->send_get('/plackup'));
    is $res && $res->{body}, 'hi', 'plackup -s Kamado serves';
    my @lines = wait_lines($log, 1);
    like $lines[0] // '', qr{\A127\.0\.0\.1 - - \[[^]]+\] "GET /plackup HTTP/1\.1" 200 2\n\z}, 'its common line' or diag @lines;
    is $server->stop, 0, 'plackup stops cleanly';
}
done_testing;
