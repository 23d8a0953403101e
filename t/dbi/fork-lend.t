# Fork mode keeps database connections warm too (Kamado::DBI::Lend): the
# zygote loads the driver a script used and holds the connection, and
# lends it to each forked child in turn, shown by the server's connection
# ids (consecutive requests, each a new child process, run on the same
# connection); what a child leaves (a transaction, session state) is
# reset before the next borrows it; a child killed in the middle of a
# query does not break the next request, which gets a new connection;
# --no-persistent-dbi connects in every child; seed 004's `our $dbh`
# script runs on the zygote's connection from its first request (its
# connect arguments read from it: t/dbi/fork-predict.t), with
# DBD::mysql as with DBD::MariaDB; zygotes started by --preload-cgi lend
# as well. MariaDB with both drivers, and PostgreSQL.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(read_response start_server);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(serve sql seed_script databases);

my @databases = databases();
for my $case (@databases) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        my $db = $start->();
        my $pg = ref($db) =~ /Pg/;
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
        my $driver = $pg ? 'DBD/Pg/Pg.so' : sprintf 'DBD/%s/%s.so', ($db->driver) x 2;
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

# (the server first: Kamado::Test::start_server hands over its socket on
# fd 3, which a database connection opened before takes)
for my $case (@databases) {
    my ($name, $start) = @$case;
    subtest "$name: seed 004's `our \$dbh` script" => sub {
        my $root = File::Temp::tempdir(CLEANUP => 1);
        my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'fork']);
        my $db = $start->();
        put_script($root, 'seed.cgi', seed_script($db));
        my $made = sub { ref($db) =~ /MariaDB/ ? $db->sql(q{SHOW GLOBAL STATUS LIKE 'Connections'})->[0][1] : 0 };
        my $before = $made->();
        my @ids = map { get_script($server, 'seed.cgi')->{body} =~ /^(\d+)$/ ? $1 : 'none' } 1 .. 10;
        like $ids[0], qr/^\d+$/, 'the script answers with its connection' or diag $server->log;
        is scalar(keys %{{ map { $_ => 1 } @ids }}), 1, 'the 10 requests ran on one connection, the zygote\'s';
        cmp_ok $made->() - $before, '<=', 1,
            'the server saw one connection made (the zygote\'s, before its first child)'
            if ref($db) =~ /MariaDB/;
        $server->stop;
    };
}

for my $case (grep { $_->[0] =~ /MariaDB/ } @databases) {
    my ($name, $start) = @$case;
    subtest "$name: zygotes started before the first request (--preload-cgi) lend too" => sub {
        my $db = $start->();
        my $server = serve($db, mode => 'fork', args => ['--preload-cgi']);
        my @ids = map { sql($server, {}, 'SELECT 1')->{id} } 1 .. 3;
        ok $ids[1] && $ids[1] == $ids[2], 'the second and third requests ran on the zygote\'s connection' or diag $server->log;
        $server->stop;
    };
}

done_testing;
