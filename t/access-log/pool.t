# --pool: a request handed to another pool's workers (its connection
# passed over) is logged once, by the worker that served it; requests
# of the default pool as usual. %P shows which process wrote each line.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines);

my $dir = File::Temp->newdir;
my $log = "$dir/access.log";
my $server = start_server(workers => 1,
    args => ['--access-log', $log, '--access-log-format', '%P %>s %b %U', '--pool', 'slow:/slow,workers=1'],
    app => 'sub { [200, ["Content-Type" => "text/plain"], ["$$"]] }');
my %served;
my $c = $server->connect;
my $buf = '';
for my $path (qw(/fast/1 /slow/1 /fast/2 /slow/2)) {
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    my $res = read_response($c, buffer => \$buf);
    $served{$path} = $res && $res->{body};
    if ($res && ($res->{headers}{connection} // '') eq 'close') { $c = $server->connect; $buf = '' }
}
isnt $served{'/slow/1'}, $served{'/fast/1'}, 'the pool has a worker of its own';
my @lines = wait_lines($log, 4);
is scalar(@lines), 4, 'four lines, one per request' or diag @lines;
my %logged = map { my ($pid, $s, $b, $path) = split ' '; ($path => "$pid $s $b") } @lines;
for my $path (sort keys %served) {
    is $logged{$path}, "$served{$path} 200 " . length($served{$path}), "$path: logged by the worker that served it";
}
is $server->stop, 0, 'the server stops cleanly';
done_testing;
