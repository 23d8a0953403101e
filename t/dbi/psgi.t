# Kamado::DBI for PSGI apps (enable 'Kamado::DBI' with Plack::Builder),
# under kamado and under plackup -s Kamado, against real MariaDB and
# PostgreSQL: the app's DBI->connect on every request gets the same
# server connection; a transaction and session state a request leaves
# are undone by the server after the response (psgix.cleanup), never by
# the app; an app without the middleware served beside CGI directories
# (whose kept handles make DBI->connect the process's) gets the reset too; and on a server without psgix.cleanup (Plack's
# HTTP::Server::PSGI) the reset happens before the next request.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use POSIX ();
use File::Spec ();
use Kamado::Test qw(start_server raw_request app_file eventually);
use Kamado::Test::Plackup qw(start_plackup free_port);
use Kamado::Test::MariaDB;
use Kamado::Test::Pg;
use Kamado::Test::DBICGI qw(databases);

my $APP = <<'APP';
use Plack::Builder;
use DBI;
builder {
    enable 'Kamado::DBI';
    sub {
        my $env = shift;
        my %q = map { split /=/, $_, 2 } split /&/, $env->{QUERY_STRING};
        my $dbh = DBI->connect($ENV{KT_DSN}, $ENV{KT_USER}, $ENV{KT_PASS}, { RaiseError => 1, PrintError => 0 });
        my ($id) = $dbh->selectrow_array($ENV{KT_ID_SQL});
        my @out = ("id=$id", 'cleanup=' . ($env->{'psgix.cleanup'} ? scalar @{ $env->{'psgix.cleanup.handlers'} } : 'none'));
        if ($q{leave}) {
            $dbh->begin_work;
            $dbh->do('INSERT INTO t VALUES (1)');
            $dbh->do($ENV{KT_SET_SQL});
        }
        push @out, 'rows=' . $dbh->selectrow_array('SELECT COUNT(*) FROM t');
        push @out, 'state=' . ($dbh->selectrow_array($ENV{KT_STATE_SQL}) // 'NULL');
        $dbh->disconnect;
        [200, ['Content-Type' => 'text/plain'], [join ' ', @out]];
    };
};
APP

sub get {
    my ($server, $query) = @_;
    my $raw = raw_request($server, "GET /?$query HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 30);
    my (undef, $body) = split /\r\n\r\n/, $raw, 2;
    return { ($body // '') =~ /(\w+)=(\S+)/g };
}

for my $case (databases()) {
    my ($name, $start) = @$case;
    my $db = $start->();
    my $pg = ref($db) =~ /Pg/;
    my $admin = DBI->connect($db->dsn, $db->user, $db->password, { RaiseError => 1, PrintError => 0 });
    $admin->do('CREATE TABLE t (n INT)');
    $admin->disconnect;
    local $ENV{KT_DSN} = $db->dsn;
    local $ENV{KT_USER} = $db->user;
    local $ENV{KT_PASS} = $db->password;
    local $ENV{KT_ID_SQL} = $pg ? 'SELECT pg_backend_pid()' : 'SELECT CONNECTION_ID()';
    local $ENV{KT_SET_SQL} = $pg ? q{SET application_name = 'left-behind'} : q{SET @x = 'left-behind'};
    local $ENV{KT_STATE_SQL} = $pg ? q{SELECT NULLIF(current_setting('application_name'), '')} : 'SELECT @x';
    my $file = app_file($APP);
    for my $how ('kamado', 'plackup -s Kamado') {
        subtest "$name, $how" => sub {
            my $port = free_port();
            my $server = $how eq 'kamado'
                ? start_server(app_file => $file, workers => 1)
                : start_plackup(app_file => $file, port => $port, args => ['--port', $port, '--host', '127.0.0.1', '--workers', 1]);
            my $first = get($server, 'x=1');
            ok $first->{id}, 'the app connects' or diag $server->log;
            is $first->{cleanup}, 1, 'the middleware left its reset to the server (one psgix.cleanup handler)';
            my $left = get($server, 'leave=1');
            is_deeply [@$left{qw(id rows state)}], [$first->{id}, 1, 'left-behind'],
                'a request leaves an insert uncommitted and session state, on the kept connection';
            my $next = get($server, 'x=2');
            is_deeply [@$next{qw(id rows state)}], [$first->{id}, 0, 'NULL'], 'the next request sees neither, on the same connection';
            is_deeply [$db->connections], [$first->{id}], 'the one connection, kept';
            $server->stop;
        };
    }

    subtest "$name, an app without the middleware beside CGI scripts" => sub {
        (my $bare = $APP) =~ s/^\s*enable 'Kamado::DBI';\n//m or die;
        my $server = start_server(app_file => app_file($bare), workers => 1,
            args => ['--cgi-bin', File::Spec->rel2abs('t/dbi/cgi')]);
        my $left = get($server, 'leave=1');
        is_deeply [@$left{qw(rows state)}], [1, 'left-behind'], 'a request leaves an insert uncommitted and session state';
        my $next = get($server, 'x=1');
        is_deeply [@$next{qw(id rows state)}], [$left->{id}, 0, 'NULL'],
            'the next sees neither, on the same connection: kamado put the reset in for it';
        $server->stop;
    };

    subtest "$name, a server without psgix.cleanup" => sub {
        my $port = free_port();
        my $pid = fork // die;
        if (!$pid) {
            require Plack::Util;
            require HTTP::Server::PSGI;
            my $app = Plack::Util::load_psgi($file);
            HTTP::Server::PSGI->new(host => '127.0.0.1', port => $port)->run($app);
            POSIX::_exit(0);
        }
        my $server = bless { port => $port }, 'Kamado::Test';
        ok eventually(sub { IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port) }), 'HTTP::Server::PSGI is up';
        my $left = get($server, 'leave=1');
        is $left->{cleanup}, 'none', 'it has no psgix.cleanup';
        is $left->{state}, 'left-behind', 'a request leaves state';
        my $next = get($server, 'x=1');
        is_deeply [@$next{qw(id rows state)}], [$left->{id}, 0, 'NULL'], 'reset before the next request, same connection';
        kill TERM => $pid;
        waitpid $pid, 0;
    };
}

done_testing;
