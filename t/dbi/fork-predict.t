# Fork mode makes one database connection per zygote, not two: the
# zygote reads the connect arguments from the compiled script
# (Kamado::DBI::Predict) and connects before its first child runs, so
# that the first child borrows too. Counted by MariaDB itself (its
# Connections counter, its processlist), with DBD::MariaDB and
# DBD::mysql, through `kamado` on the command line with two workers:
# seed 004's `our $dbh` script (its DSN, user and password in file
# lexicals), a script that connects on every request, one whose DSN is
# interpolated from variables (DBI's own example), and one that runs
# under taint mode. A prediction
# that is wrong (a file the script requires at run time changes the
# DSN) costs one connection that the zygote closes once its first child
# has not used it; one that cannot connect (a wrong password the script
# later puts right) is logged at debug level only; a DSN built from the
# query string is not predicted. Each still answers every request.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::CGI qw(put_script get_script);
use Kamado::Test::MariaDB;
use Kamado::Test::DBICGI qw(databases);

my $WORKERS  = 2;
my $REQUESTS = 24;

sub perl_string { "'" . ($_[0] =~ s/([\\'])/\\$1/gr) . "'" }

# The scripts for the database DB: each prints its connection's id and
# its zygote's pid.
sub scripts {
    my ($db) = @_;
    my ($dsn, $user, $pass) = map { perl_string($_) } $db->dsn, $db->user, $db->password;
    my $show = <<'PERL';
my ($id) = $dbh->selectrow_array('SELECT CONNECTION_ID()');
print "Content-Type: text/plain\n\nid=$id zygote=", getppid(), "\n";
PERL
    (my $other_dsn = $db->dsn) =~ s/;host=([^;]+);port=(\d+)/;port=$2;host=$1/ or die 'dsn: ' . $db->dsn;
    return (
        'seed.cgi' => <<"CGI" . $show,
#!/usr/bin/perl
use strict;
use warnings;
use DBI;
my (\$dsn, \$dbuser, \$dbpass) = ($dsn, $user, $pass);
our (\$pp, \$dbh);
if ((!defined(\$dbh)) or (!\$dbh->ping())) {
    \$dbh = DBI->connect(\$dsn, \$dbuser, \$dbpass,
           { RaiseError => 1, PrintError => 0, AutoCommit => 0 });
}
CGI
        'connect.cgi' => <<"CGI" . $show . "\$dbh->disconnect;\n",
#!/usr/bin/perl
use strict;
use warnings;
use DBI;
my \$dbh = DBI->connect($dsn, $user, $pass, { RaiseError => 1, PrintError => 0, AutoCommit => 1 });
CGI
        # (DBI's own idiom: the DSN interpolated from variables)
        'interpolated.cgi' => <<"CGI" . $show,
#!/usr/bin/perl
use strict;
use warnings;
use DBI;
my \$database = '$db->{database}';
my \$hostname = '127.0.0.1';
our \$port = $db->{port};
my \$dsn = "DBI:${\ $db->driver}:database=\$database;host=\$hostname;port=\$port";
my \$dbh = DBI->connect(\$dsn, $user, $pass, { RaiseError => 1, PrintError => 0 });
CGI
        # (under taint mode, where the zygote and its reading child run with -T)
        'taint.cgi' => <<"CGI" . $show,
#!/usr/bin/perl -T
use strict;
use warnings;
use DBI;
our \$dbh = DBI->connect($dsn, $user, $pass, { RaiseError => 1, PrintError => 0 });
CGI
        # (a prediction that connects, but not to what the script asks for)
        'respelled.cgi' => <<"CGI" . $show,
#!/usr/bin/perl
use strict;
use warnings;
use DBI;
our \$dsn = $dsn;
require './respell.pl';
my \$dbh = DBI->connect(\$dsn, $user, $pass, { RaiseError => 1, PrintError => 0 });
CGI
        'respell.pl' => "\$main::dsn = " . perl_string($other_dsn) . ";\n1;\n",
        # (a prediction that cannot connect)
        'password.cgi' => <<"CGI" . $show,
#!/usr/bin/perl
use strict;
use warnings;
use DBI;
our \$dbpass = 'not the password';
require './password.pl';
my \$dbh = DBI->connect($dsn, $user, \$dbpass, { RaiseError => 1, PrintError => 0 });
CGI
        'password.pl' => "\$main::dbpass = $pass;\n1;\n",
        # (nothing to predict: the DSN is the query string's)
        'query.cgi' => <<"CGI" . $show,
#!/usr/bin/perl
use strict;
use warnings;
use DBI;
my (\$database) = (\$ENV{QUERY_STRING} // '') =~ /db=(\\w+)/;
my \$dbh = DBI->connect('DBI:${\ $db->driver}:database=' . \$database . ';host=127.0.0.1;port=$db->{port}', $user, $pass,
    { RaiseError => 1, PrintError => 0 });
CGI
    );
}

sub made { $_[0]->sql(q{SHOW GLOBAL STATUS LIKE 'Connections'})->[0][1] }

# REQUESTS requests of SCRIPT: { made (connections), zygotes => {pid => {connection id => 1}}, statuses }
sub run_script {
    my ($server, $db, $script, $query) = @_;
    my $before = made($db);
    my (%zygotes, @status);
    for (1 .. $REQUESTS) {
        my $r = get_script($server, $script . ($query // ''));
        push @status, $r->{status};
        my ($id, $zygote) = ($r->{body} // '') =~ /\Aid=(\d+) zygote=(\d+)$/m or next;
        $zygotes{$zygote}{$id} = 1;
    }
    return { made => made($db) - $before, zygotes => \%zygotes, status => \@status };
}

for my $case (databases(pg => 0)) {
    my ($name, $start) = @$case;
    subtest $name => sub {
        my $root = File::Temp::tempdir(CLEANUP => 1);
        # (the server first: start_server hands over its socket on fd 3)
        my $server = start_server(
            no_app => 1, workers => $WORKERS,
            args => ['--cgi-bin', $root, '--cgi-mode', 'fork', '--log-level', 'debug']
        );
        my $db = $start->();
        my %scripts = scripts($db);
        put_script($root, $_, $scripts{$_}) for sort keys %scripts;
        my $zygotes = 0;
        for my $script ('seed.cgi', 'connect.cgi', 'interpolated.cgi', 'taint.cgi') {
            my $r = run_script($server, $db, $script);
            is_deeply $r->{status}, [(200) x $REQUESTS], "$script: $REQUESTS requests answered" or diag $server->log;
            my @z = sort keys $r->{zygotes}->%*;
            $zygotes += @z;
            ok @z >= 1 && @z <= $WORKERS, "$script: run by " . @z . ' zygote(s)';
            is_deeply [map { scalar keys $r->{zygotes}{$_}->%* } @z], [(1) x @z],
                "$script: every child of a zygote, its first among them, ran on one connection";
            cmp_ok $r->{made}, '<=', scalar @z,
                "$script: MariaDB saw at most one connection made per zygote ($r->{made})";
            ok eventually(sub { $db->connections == $zygotes }, 20),
                "$script: one connection per zygote open (" . scalar($db->connections) . ", $zygotes zygotes)";
        }

        my $r = run_script($server, $db, 'respelled.cgi');
        is_deeply $r->{status}, [(200) x $REQUESTS], 'a wrong prediction: every request answered' or diag $server->log;
        my @z = sort keys $r->{zygotes}->%*;
        $zygotes += @z;
        # (per zygote: the prediction's, the first child's own, the zygote's for the children after it)
        cmp_ok $r->{made}, '<=', 3 * @z,
            "a wrong prediction: at most one connection more per zygote ($r->{made}, " . @z . ' zygote(s))';
        ok eventually(sub { $db->connections == $zygotes }, 20),
            'and the unused one is closed: one connection per zygote open (' . scalar($db->connections) . ')';
        like $server->log, qr/handle made on a prediction and not asked for by the first child: closed/,
            'which the debug log says';

        $r = run_script($server, $db, 'password.cgi');
        is_deeply $r->{status}, [(200) x $REQUESTS], 'a prediction that cannot connect: every request answered';
        @z = sort keys $r->{zygotes}->%*;
        $zygotes += @z;
        like $server->log, qr/\[debug\].*a predicted connection could not be made/,
            'the failed connect is a debug line';
        unlike $server->log, qr/\[(?:error|warn)\].*(?:predict|Access denied)/, 'and nothing more';
        ok eventually(sub { $db->connections == $zygotes }, 20), 'one connection per zygote open';

        $r = run_script($server, $db, 'query.cgi', '?db=' . $db->{database});
        is_deeply $r->{status}, [(200) x $REQUESTS], 'a DSN from the query string: every request answered';
        @z = sort keys $r->{zygotes}->%*;
        $zygotes += @z;
        cmp_ok $r->{made}, '<=', 2 * @z, "not predicted: two connections per zygote at most, as before ($r->{made})";
        diag $server->log if $ENV{KT_DEBUG};
        ok eventually(sub { $db->connections == $zygotes }, 20), 'one connection per zygote open';
        $server->stop;
    };
}

done_testing;
