# Kamado::DBI::Predict, which fork mode's zygote uses to connect before
# its first child runs: which DBI->connect calls it reads from a
# compiled script, with what arguments, and the ones it must leave alone
# because run-time code may change them (a wrong reading costs a
# connection; a missed one, only what fork mode cost before).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use JSON::PP ();

my $dir = File::Temp::tempdir(CLEANUP => 1);
my $n = 0;

sub predict {
    my ($code) = @_;
    my $file = "$dir/script" . ++$n . '.cgi';
    open my $fh, '>', $file or die "$file: $!";
    print $fh $code;
    close $fh;
    my $out = `$^X -Iblib/lib -Iblib/arch -It/lib -MKamado::Test::Predict $file 2>&1`;
    return eval { JSON::PP->new->decode($out) } // "not JSON: $out";
}

my %cases = (
    'literals, attributes as an anonymous hash' => [
        q{DBI->connect('dbi:mysql:database=a', 'u', 'p', { RaiseError => 1, AutoCommit => 0 });},
        [['dbi:mysql:database=a', 'u', 'p', { RaiseError => 1, AutoCommit => 0 }]]
    ],
    'seed 004: file lexicals set by one list assignment, `our $dbh`' => [
        <<'PERL',
use strict;
my ($dsn, $dbuser, $dbpass) = ('DBI:mysql:database=a;host=127.0.0.1', 'u', 'p');
our ($pp, $dbh);
if (!defined $dbh or !$dbh->ping) {
    $dbh = DBI->connect($dsn, $dbuser, $dbpass, { RaiseError => 1, PrintError => 0, AutoCommit => 0 });
}
PERL
        [['DBI:mysql:database=a;host=127.0.0.1', 'u', 'p', { RaiseError => 1, PrintError => 0, AutoCommit => 0 }]]
    ],
    'package variables, a constant, connect_cached, no attributes' => [
        <<'PERL',
use constant USER => 'u';
our $dsn = 'dbi:MariaDB:database=a';
$main::pass = 'p';
my $dbh = DBI->connect_cached($dsn, USER, $main::pass);
PERL
        [['dbi:MariaDB:database=a', 'u', 'p', undef]]
    ],
    "DBI's example: the DSN interpolated, the variables declared first" => [
        <<'PERL',
my ($database, $hostname);
$database = 'a';
$hostname = 'db';
our $port = 3306;
my $dsn = "DBI:mysql:database=$database;host=$hostname;port=$port";
DBI->connect($dsn, 'u', undef, {});
PERL
        [['DBI:mysql:database=a;host=db;port=3306', 'u', undef, {}]]
    ],
    'in a named sub and an anonymous one' => [
        <<'PERL',
my $user = 'u';
sub db { DBI->connect('dbi:Pg:dbname=a', $user, 'p') }
my $other = sub { DBI->connect('dbi:Pg:dbname=b', $user, 'q') };
PERL
        [['dbi:Pg:dbname=b', 'u', 'q', undef], ['dbi:Pg:dbname=a', 'u', 'p', undef]]
    ],
    'the same connect twice: once' => [
        q{DBI->connect('dbi:SQLite:a', '', '') for 1, 2; DBI->connect('dbi:SQLite:a', '', '');},
        [['dbi:SQLite:a', '', '', undef]]
    ],
);
my %none = (
    'from the environment'          => q{DBI->connect($ENV{DSN}, 'u', 'p');},
    'from the query string'         =>
        q{my ($db) = $ENV{QUERY_STRING} =~ /db=(\w+)/; DBI->connect("dbi:mysql:$db", 'u', 'p');},
    'assigned twice'                =>
        q{my $dsn = 'dbi:mysql:a'; $dsn = 'dbi:mysql:b' if $ENV{X}; DBI->connect($dsn, 'u', 'p');},
    'appended to'                   => q{my $dsn = 'dbi:mysql:a'; $dsn .= ';port=1'; DBI->connect($dsn, 'u', 'p');},
    'changed by a named sub'        =>
        q{my $pass = 'p'; sub set { $pass = shift } DBI->connect('dbi:mysql:a', 'u', $pass);},
    'set inside a sub only'         => q{our $dsn; sub init { $dsn = 'dbi:mysql:a' } DBI->connect($dsn, 'u', 'p');},
    'localized'                     =>
        q{our $dsn = 'dbi:mysql:a'; sub f { local $dsn = 'dbi:mysql:b'; g() } DBI->connect($dsn, 'u', 'p');},
    'a reference taken'             => q{my $dsn = 'dbi:mysql:a'; my $r = \$dsn; DBI->connect($dsn, 'u', 'p');},
    'given to another sub'          => q{my $dsn = 'dbi:mysql:a'; fix($dsn); DBI->connect($dsn, 'u', 'p');},
    'chomped'                       => q{my $dsn = 'dbi:mysql:a'; chomp $dsn; DBI->connect($dsn, 'u', 'p');},
    'not a DBI data source'         => q{DBI->connect('mysql:a', 'u', 'p');},
    'attributes in the DSN'         => q{DBI->connect('dbi:mysql(RaiseError=>1):a', 'u', 'p');},
    'another class'                 => q{MyDB->connect('dbi:mysql:a', 'u', 'p');},
    'arguments from an array'       => q{my @a = ('dbi:mysql:a', 'u', 'p'); DBI->connect(@a);},
    'an attribute from the request' => q{DBI->connect('dbi:mysql:a', 'u', 'p', { AutoCommit => $ENV{AC} });},
    'a code reference attribute'    => q{DBI->connect('dbi:mysql:a', 'u', 'p', { HandleError => sub { 1 } });},
);

for my $name (sort keys %cases) {
    my ($code, $want) = $cases{$name}->@*;
    is_deeply predict($code), $want, $name;
}
for my $name (sort keys %none) {
    is_deeply predict($none{$name}), [], "nothing read: $name";
}

done_testing;
