# Fork mode keeps database connections warm too (Kamado::DBI::Lend): the
# zygote loads the driver a script used and holds the connection, and
# lends it to each forked child in turn, shown by the server's connection
# ids (consecutive requests, each a new child process, run on the same
# connection); what a child leaves (a transaction, session state) is
# reset before the next borrows it; a child killed in the middle of a
# query does not break the next request, which gets a new connection;
# --no-persistent-dbi connects in every child; zygotes started by
# --preload-cgi lend as well.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql);

for my $class (qw(Kamado::Test::MariaDB Kamado::Test::Pg)) {
    subtest $class => sub {
        my $pg = $class =~ /Pg/;
        my $db = $class->start;
        my $server = serve($db, mode => 'fork');
        my $first = sql($server, { ppid => 1 }, 'CREATE TABLE t (n INT)');
        is $first->{status}, 200, 'a fork mode script connects' or diag $server->log;
        my @r = map { sql($server, { ppid => 1 }, 'SELECT COUNT(*) FROM t') } 1 .. 3;
        is_deeply [map { $_->{status} } @r], [200, 200, 200], 'three more requests';
        my %pids = map { $_->{pid} => 1 } $first, @r;
        is scalar(keys %pids), 4, 'each ran in a process of its own';
        is scalar(keys %{{ map { $_->{ppid} => 1 } $first, @r }}), 1, 'forked by the one zygote';
        isnt $r[0]{id}, $first->{id}, "the first child's own connection was its own";
        is_deeply [map { $_->{id} } @r[1, 2]], [($r[0]{id}) x 2], 'the next ones ran on the same server connection: the zygote\'s';
        open my $maps, '<', "/proc/$first->{ppid}/maps" or die "maps: $!";
        my $driver = $pg ? 'DBD/Pg/Pg.so' : 'DBD/MariaDB/MariaDB.so';
        ok scalar(grep { index($_, $driver) >= 0 } <$maps>), "the zygote loaded the driver ($driver)";
        my $lent = $r[0]{id};

        my $open = sql($server, { begin => 1 }, 'INSERT INTO t VALUES (1)', 'SELECT COUNT(*) FROM t',
            $pg ? q{SET search_path = nowhere} : q{SET @x = 7});
        is_deeply $open->{rows}, ['1'], 'a child inserts in a transaction and sets session state';
        my $next = sql($server, {}, 'SELECT COUNT(*) FROM t', $pg ? 'SHOW search_path' : 'SELECT @x');
        is_deeply $next->{rows}, ['0', $pg ? '"$user", public' : 'NULL'], 'the next child sees none of it';
        is $next->{id}, $lent, 'on the same connection';

        # a child killed while its query runs
        my $sleep = $pg ? 'SELECT pg_sleep(3)' : 'SELECT SLEEP(3)';
        (my $path = "/cgi-bin/sql.cgi?q=$sleep") =~ s/ /%20/g;
        my $c = $server->connect;
        syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        my $got = '';
        vec(my $rin = '', fileno $c, 1) = 1;
        while ($got !~ /^id=\d+ pid=(\d+)$/m && select(my $r = $rin, undef, undef, 20)) {
            sysread($c, $got, 4096, length $got) or last;
        }
        my ($busy, $pid) = $got =~ /^id=(\d+) pid=(\d+)$/m;
        is $busy, $lent, 'a child runs a long query on the lent connection';
        ok kill(KILL => $pid), 'and is killed in the middle of it';
        1 while sysread $c, my $rest, 4096;
        my $after = sql($server, {}, 'SELECT 1');
        is $after->{status}, 200, 'the next request succeeds' or diag $server->log;
        isnt $after->{id}, $lent, 'on a new connection: the one left mid-reply is not lent again';
        is sql($server, {}, 'SELECT 1')->{id}, $after->{id}, 'which the children after it borrow';
        like $server->log, qr/Kamado::DBI: \w+ handle left by a fork mode child that did not end cleanly/,
            'the replacement is logged';
        $server->stop;

        my $plain = serve($db, mode => 'fork', args => ['--no-persistent-dbi']);
        my @ids = map { sql($plain, {}, 'SELECT 1')->{id} } 1 .. 3;
        is scalar(keys %{{ map { $_ => 1 } @ids }}), 3, '--no-persistent-dbi: a new connection in every child';
        $plain->stop;
    };
}

subtest 'zygotes started before the first request (--preload-cgi) lend too' => sub {
    my $db = Kamado::Test::MariaDB->start;
    my $server = serve($db, mode => 'fork', args => ['--preload-cgi']);
    my @ids = map { sql($server, {}, 'SELECT 1')->{id} } 1 .. 3;
    ok $ids[1] && $ids[1] == $ids[2], 'the second and third requests ran on the zygote\'s connection' or diag $server->log;
    $server->stop;
};

done_testing;
