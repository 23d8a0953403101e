# An option plackup passes on that Kamado does not know (a misspelt one,
# plackup's -D) is not silently dropped: one warning line names it, and
# the server starts with the rest.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(read_response);
use Kamado::Test::Plackup qw(start_plackup free_port);

my $port = free_port();
my $server = start_plackup(port => $port, args => ['--port', $port, '-E', 'deployment', '--wrokers', 3],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');
my $res = read_response($server->send_get('/'));
is $res && $res->{body}, 'ok', 'serves';
like $server->log, qr/^\S+ \[warn\] supervisor \d+: ignoring 'wrokers', not an option of Kamado \(see kamado --help\)$/m,
    'one line naming the unknown option';
like $server->log, qr/with 1 workers/, 'which changed nothing';
is $server->stop, 0, 'TERM stops plackup cleanly';
done_testing;
