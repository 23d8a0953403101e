# Registry mode, real databases: seed 004's idiom (the handle in `our
# $dbh`, connected when undefined or not answering ping) keeps one
# connection per worker: every request is answered on the same server
# connection, and the test user has that one connection open. (DBI's own
# END block, disconnect_all, loaded with the script, must not run after
# each run: it would end the kept connection.)
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::DBICGI qw(seed_script databases);
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;

for my $case (databases()) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        # (the server first: Kamado::Test::start_server hands over its
        # socket on fd 3, which a database connection opened before takes)
        my $root = File::Temp::tempdir(CLEANUP => 1);
        my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'registry']);
        my $db = $start->();
        put_script($root, 'seed.cgi', seed_script($db));
        my @ids = map { get_script($server, 'seed.cgi')->{body} =~ /^(\d+)$/ ? $1 : 'none' } 1 .. 5;
        like $ids[0], qr/^\d+$/, 'the script answers with its connection';
        is_deeply \@ids, [($ids[0]) x 5], 'five requests, one connection';
        is_deeply [$db->connections], [$ids[0]], 'the test user has that one connection open';
        is $server->stop, 0, 'TERM: exit 0';
        unlike $server->log, qr/seed\.cgi/, 'nothing about the script in the log';
    };
}
done_testing;
