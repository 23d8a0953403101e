# Seed 004's script, written for PersistentPerl, runs unchanged: its
# handle in `our $dbh`, connected when undefined or not answering ping,
# its PersistentPerl object in `our $pp`, registering a shutdown handler
# that rolls back and disconnects. In registry mode it connects once per
# worker, however many requests, and its handler runs when the worker
# ends; in perlrun and fork mode it answers the same. (One worker: with
# AutoCommit off, DBD::SQLite starts immediate transactions, and the
# seed's script never ends its own, so a second worker would wait for
# the first's lock; MariaDB's reads take none.) With --no-persistent-dbi:
# Kamado::DBI closes SQLite handles at the end of each request; the same
# script on MariaDB with Kamado::DBI on is t/dbi/registry-keeps-handle.t.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use DBI ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $out = File::Temp::tempdir(CLEANUP => 1);
my $db = "$out/seed.db";
{
    my $dbh = DBI->connect("dbi:SQLite:dbname=$db", '', '', { RaiseError => 1 });
    $dbh->do('CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)');
    $dbh->begin_work;
    $dbh->do('INSERT INTO item VALUES (?, ?)', undef, $_, "item $_") for 1 .. 100;
    $dbh->commit;
}
put_script($root, 'seed.cgi', <<"CGI");
#!/usr/bin/perperl
use strict;
use DBI;
use PersistentPerl;

my (\$dsn, \$dbuser, \$dbpass) = ('dbi:SQLite:dbname=$db', '', '');
our (\$pp, \$dbh);

if ((!defined(\$dbh)) or (!\$dbh->ping())) {
    \$dbh = DBI->connect(\$dsn, \$dbuser, \$dbpass,
           { RaiseError => 1, PrintError => 0, AutoCommit => 0 });
    if (!defined(\$pp)) {
        \$pp = PersistentPerl->new();
        \$pp->add_shutdown_handler(sub {
            if (defined(\$dbh)) {
                eval { \$dbh->rollback(); };
                eval { \$dbh->disconnect(); };
                open my \$f, '>>', '$out/shutdown';
                print \$f "\$\$\\n";
            }
        });
    }
}

my (\$id) = (\$ENV{QUERY_STRING} // '') =~ /id=(\\d+)/;
my (\$name) = \$dbh->selectrow_array('SELECT name FROM item WHERE id = ?', undef, \$id);
print "Content-Type: text/plain\\n\\n\$name\\n";
CGI
sub lines {
    open my $fh, '<', "$out/$_[0]" or return ();
    return map { chomp; $_ } <$fh>;
}

local $ENV{KAMADO_TEST_CONNECTS} = "$out/connects";
for my $mode (qw(registry perlrun fork)) {
    unlink "$out/connects", "$out/shutdown";
    my $server = start_server(no_app => 1, workers => 1,
        args => ['-It/lib', '-MKamado::Test::CountConnects', '--cgi-bin', $root, '--cgi-mode', $mode,
            '--no-persistent-dbi']);
    my $ok = grep { my $id = 1 + $_ % 100; get_script($server, "seed.cgi?id=$id")->{body} eq "item $id\n" } 1 .. 20;
    is $ok, 20, "$mode: 20 requests, each the right row" or diag $server->log;
    # (the worker, once it has answered: it may not be forked yet when the
    # server says it accepts)
    my @workers = $server->workers;
    if ($mode eq 'registry') {
        my %connects;
        $connects{$_}++ for lines('connects');
        is_deeply \%connects, { map { $_ => 1 } @workers }, 'registry: one connect in the worker, for 20 requests';
        is_deeply [lines('shutdown')], [], 'registry: no shutdown handler while the workers serve';
        is $server->stop, 0, "$mode: TERM: exit 0";
        is_deeply [lines('shutdown')], \@workers, 'registry: the shutdown handler ran in the worker when it ended';
    } else {
        is $server->stop, 0, "$mode: TERM: exit 0";
    }
    unlike $server->log, qr/seed\.cgi|died/, "$mode: nothing wrong in the log";
}
done_testing;
