# Registry mode, MariaDB with both drivers: seed 004's idiom pings its kept handle on every
# request (`!$dbh->ping`). Kamado::DBI answers that ping without a round
# trip while the server answered within --dbi-ping-interval and has not
# closed the socket, as it does for DBI->connect: ten requests make ten
# server commands (the session resets), not twenty. A connection the
# server killed fails the ping and the script connects again; with
# --dbi-ping-interval 0 every ping reaches the server.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::DBICGI qw(seed_script);
use Kamado::Test::MariaDB;

my $db = Kamado::Test::MariaDB->start;

# The server's count of COM_PING, COM_RESET_CONNECTION and the like, once
# it has settled: a request's reset is written after its response, and
# the server may count it a moment later. (Read on a handle of our own:
# Kamado::Test::MariaDB's admin handle pings on every use.)
my $admin = $db->admin;
sub count { ($admin->selectrow_array(q{SHOW GLOBAL STATUS LIKE 'Com_admin_commands'}))[1] }
sub admin_commands {
    my $n = count();
    for (1 .. 40) {
        select undef, undef, undef, 0.05;
        my $again = count();
        return $n if $again == $n;
        $n = $again;
    }
    return $n;
}

for my $case (map { my $driver = $_; map { [$driver, $_] } undef, 0 } Kamado::Test::MariaDB::drivers()) {
    my ($driver, $interval) = @$case;
    subtest "DBD::$driver, ping interval " . ($interval // 'default') => sub {
        $db->use_driver($driver);
        my $root = File::Temp::tempdir(CLEANUP => 1);
        my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'registry',
            defined $interval ? ('--dbi-ping-interval', $interval) : ()]);
        put_script($root, 'seed.cgi', seed_script($db));
        my $get = sub { my $res = get_script($server, 'seed.cgi'); $res->{status} == 200 && $res->{body} =~ /^(\d+)$/ ? $1 : "$res->{status} $res->{body}" };
        my $first = $get->();
        like $first, qr/^\d+$/, 'the script answers with its connection id';
        my $before = admin_commands();
        my @ids = map { $get->() } 1 .. 10;
        my $commands = admin_commands() - $before;
        is_deeply \@ids, [($first) x 10], 'ten requests on the one connection';
        is $commands, defined $interval ? 20 : 10,
            defined $interval ? 'every ping reached the server, and every reset' : 'the server saw the ten resets and no ping'
            or diag $server->log;

        $db->kill_connection($first);
        my $next = $get->();
        like $next, qr/^\d+$/, 'after KILL CONNECTION the next request is answered' or diag $server->log;
        isnt $next, $first, '... on a new connection';
        is $get->(), $next, 'which is kept';
        is $server->stop, 0, 'TERM: exit 0';
    };
}
done_testing;
