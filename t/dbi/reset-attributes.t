# Registry mode: a handle kept in `our $dbh` (seed 004's idiom) has the
# attributes its DBI->connect gave it at the start of every request,
# whatever the last request set on it: set directly, with `local`, or
# after the script replaced the handle's Callbacks (Kamado::DBI then
# compares every attribute), or left a transaction open (the rollback
# keeps its HandleError); and the connection stays the same one.
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
        my $root = File::Temp::tempdir(CLEANUP => 1);
        my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'registry']);
        my $db = $start->();
        put_script($root, 'attrs.cgi', seed_script($db, attr => 'RaiseError => 1, PrintError => 0, AutoCommit => 1, HandleError => sub { 0 }',
            body => <<'BODY'));
print "Content-Type: text/plain\n\n";
print join(' ', "id=$id", map { "$_=" . ($dbh->{$_} // 'undef') }
    qw(RaiseError PrintError AutoCommit LongReadLen FetchHashKeyName ChopBlanks ShowErrorStatement)),
    ' HandleError=', (ref $dbh->{HandleError} || 'none'), "\n";
my $how = $ENV{QUERY_STRING} // '';
$dbh->{Callbacks} = {} if $how eq 'callbacks';
if ($how) {
    $dbh->{RaiseError} = 0;
    $dbh->{LongReadLen} = 7;
    $dbh->{FetchHashKeyName} = 'NAME_uc';
    $dbh->{ChopBlanks} = 1;
    $dbh->{AutoCommit} = 0;
}
local $dbh->{ShowErrorStatement} = 0 if $how eq 'local';
# (a transaction left open: its rollback is one of the resets that can fail)
$dbh->begin_work if $how eq 'begin';
BODY
        my $first = get_script($server, 'attrs.cgi')->{body};
        my ($id) = $first =~ /^id=(\d+) / or diag $first;
        like $first, qr/HandleError=CODE/, 'the handler given at connect is there';
        for my $how (qw(direct local callbacks begin)) {
            get_script($server, "attrs.cgi?$how");
            is get_script($server, 'attrs.cgi')->{body}, $first, "after a request that set them ($how): as at first";
        }
        is_deeply [$db->connections], [$id], 'one connection throughout';
        unlike $server->log, qr/could not be reset|found dead|closed/, 'no handle was replaced';
        is $server->stop, 0, 'TERM: exit 0';
    };
}
done_testing;
