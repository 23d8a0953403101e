# Registry mode keeps what a run left in a package scalar when it is a
# database handle (DBI::db) or a PersistentPerl object, the idiom of
# scripts written for a persistent perl (our $dbh, connected unless
# defined): request 2 in the same worker finds request 1's handle, the
# same object. Every other package variable is still put back as the
# script compiled it, statement handles and other objects among them.
# SQLite handles are closed by Kamado::DBI at the end of each request (it
# has no session reset), so the rule shows with --no-persistent-dbi; with
# Kamado::DBI on, the closed handle is not kept and the script connects
# again, as under plain CGI, instead of finding a dead handle.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use DBI ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $db = "$root/test.db";
{
    my $dbh = DBI->connect("dbi:SQLite:dbname=$db", '', '', { RaiseError => 1 });
    $dbh->do('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
    $dbh->do(q{INSERT INTO t VALUES (1, 'one')});
}
put_script($root, 'dbh.cgi', <<"CGI");
#!/usr/bin/perl
use strict;
use DBI;
use PersistentPerl;
our (\$dbh, \$pp, \$sth, \$other, \$count, \@list, \%hash);
my \$connected = 0;
if (!defined \$dbh) {
    \$dbh = DBI->connect('dbi:SQLite:dbname=$db', '', '', { RaiseError => 1 });
    \$dbh->{private_serial} = join '-', \$\$, rand;
    \$connected = 1;
}
\$pp //= PersistentPerl->new;
\$pp->{mark} //= rand;
print "Content-Type: text/plain\\n\\n";
printf "connected=%d serial=%s pp=%s sth=%s other=%s count=%d list=%d hash=%d\\n",
    \$connected, \$dbh->{private_serial}, \$pp->{mark}, defined \$sth ? 1 : 0, defined \$other ? 1 : 0,
    ++\$count, scalar(push \@list, 1), do { \$hash{\$count} = 1; scalar keys \%hash };
\$sth = \$dbh->prepare('SELECT name FROM t WHERE id = ?');
\$sth->execute(1);
print 'name=', \$sth->fetchrow_array, "\\n";
\$other = bless {}, 'Some::Object';
CGI

my $server = start_server(no_app => 1, workers => 1,
    args => ['--cgi-bin', $root, '--cgi-mode', 'registry', '--no-persistent-dbi']);
my @runs = map { get_script($server, 'dbh.cgi') } 1 .. 3;
is $_->{status}, 200, 'the script answers' for @runs;
my @lines = map { { $_->{body} =~ /(\w+)=(\S+)/g } } @runs;
is $lines[0]{connected}, 1, 'request 1 connects';
is $lines[$_]{connected}, 0, "request @{[ $_ + 1 ]} finds the handle request 1 left" for 1, 2;
is $lines[$_]{serial}, $lines[0]{serial}, "request @{[ $_ + 1 ]}: the same handle object" for 1, 2;
is $lines[$_]{pp}, $lines[0]{pp}, "request @{[ $_ + 1 ]}: the same PersistentPerl object" for 1, 2;
for my $i (0 .. 2) {
    my $l = $lines[$i];
    is "$l->{sth} $l->{other} $l->{count} $l->{list} $l->{hash}", '0 0 1 1 1',
        'request ' . ($i + 1) . ': other package variables as compiled (a statement handle, an object, plain data)';
    is $l->{name}, 'one', 'request ' . ($i + 1) . ': the handle works';
}
unlike $server->log, qr/dbh\.cgi/, 'nothing about the script in the log';
is $server->stop, 0, 'TERM: exit 0';
{
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'registry']);
    my @runs = map { get_script($server, 'dbh.cgi') } 1 .. 3;
    my @lines = map { { $_->{body} =~ /(\w+)=(\S+)/g } } @runs;
    is_deeply [map { $_->{status} } @runs], [200, 200, 200], 'Kamado::DBI on: every run answers';
    is_deeply [map { $_->{connected} } @lines], [1, 1, 1], 'and connects again: its closed SQLite handle is not kept';
    is_deeply [map { $_->{name} } @lines], [qw(one one one)], 'the new handle works';
    is_deeply [map { $_->{pp} } @lines[1, 2]], [$lines[0]{pp}, $lines[0]{pp}], 'the PersistentPerl object is still kept';
}
done_testing;
