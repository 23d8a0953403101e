# Persistent handles (Kamado::DBI) for unmodified CGI scripts, through the
# kamado command line, against real MariaDB (with DBD::MariaDB and with
# DBD::mysql) and PostgreSQL servers: a
# script that connects on every request gets the worker's connection
# again (the server's connection id is the same), disconnect does not
# close it, connect_cached gets it too; a connection the server killed between two requests, or a
# server restarted, is replaced on the next request, which succeeds,
# without a worker restart; --no-persistent-dbi connects per request.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(eventually);
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql databases);

for my $case (databases()) {
    my ($name, $start) = @$case;
    my $db = $start->();
    for my $mode (qw(registry perlrun)) {
        subtest "$name, $mode" => sub {
            my $server = serve($db, mode => $mode);
            my $first = sql($server, { disconnect => 1 }, 'SELECT 1');
            is $first->{status}, 200, 'a script that connects and disconnects' or diag $server->log;
            my $again = sql($server, {}, 'SELECT 1');
            is $again->{id}, $first->{id}, 'the next request gets the same server connection';
            is $again->{pid}, $first->{pid}, '(the same worker)';
            is sql($server, { cached => 1 }, 'SELECT 1')->{id}, $first->{id}, 'connect_cached gets it too';
            is_deeply [$db->connections], [$first->{id}], 'one connection open, kept between requests';

            $db->kill_connection($first->{id});
            my $after_kill = sql($server, {}, 'SELECT 1');
            is $after_kill->{status}, 200, 'the server killed it: the next request still succeeds' or diag $server->log;
            isnt $after_kill->{id}, $first->{id}, 'on a new connection';
            is $after_kill->{pid}, $first->{pid}, 'in the same worker';

            $db->restart;
            my $after_restart = sql($server, {}, 'SELECT 1');
            is $after_restart->{status}, 200, 'the database restarted: the next request succeeds';
            is $after_restart->{pid}, $first->{pid}, 'without a worker restart';
            is_deeply [$db->connections], [$after_restart->{id}], 'on the one new connection';
            # (DBD::mysql turns mysql_auto_reconnect on under CGI: its ping
            # reconnects a lost connection itself, and nothing may be left to log)
            like $server->log, qr/Kamado::DBI: \w+ handle (?:found dead, connecting again|could not be reset: closed|did not answer its reset: connecting again)/,
                'the replacement is logged (found dead, or closed when its reset failed or was not answered)'
                unless ref($db) =~ /MariaDB/ && $db->driver eq 'mysql';
            $server->stop;
        };
    }
    subtest "$name, --no-persistent-dbi" => sub {
        my $server = serve($db, mode => 'registry', args => ['--no-persistent-dbi']);
        my @ids = map { sql($server, { disconnect => 1 }, 'SELECT 1')->{id} } 1 .. 3;
        is scalar(keys %{{ map { $_ => 1 } @ids }}), 3, 'a new connection on every request';
        ok eventually(sub { !$db->connections }), 'each closed by the script' or diag join ' ', $db->connections;
        $server->stop;
    };
}

done_testing;
