# A client that goes away in the middle of a long streamed response: the
# request is still logged, with its status and the body bytes that were
# sent before the writes failed (more than none, less than the whole),
# as Apache logs a cut response; for a writer and for a getline body.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::AccessLog qw(wait_lines parse_combined);

my $dir = File::Temp->newdir;
my $log = "$dir/access.log";
my $total = 400 * 65536;
my $server = start_server(args => ['--access-log', $log, '--write-buffer', 0], app => <<'APP');
package Big { sub new { my $n = 0; bless \$n } sub getline { my $s = shift; $$s++ < 400 ? 'g' x 65536 : undef } sub close {} }
sub {
    my ($env) = @_;
    return [200, ['Content-Type' => 'text/plain'], Big->new] if $env->{PATH_INFO} eq '/getline';
    return sub {
        my $w = $_[0]->([200, ['Content-Type' => 'text/plain']]);
        $w->write('w' x 65536) for 1 .. 400;
        $w->close;
    };
}
APP

for my $path (qw(/writer /getline)) {
    my $c = $server->connect;
    syswrite $c, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n";
    my $got = '';
    while (length $got < 200_000) { sysread($c, $got, 65536, length $got) or last }
    close $c;    # gone, with most of the body still to come
    ok length $got >= 200_000, "$path: the client read some of it, then left";
}
my @lines = wait_lines($log, 2, 20);
is scalar(@lines), 2, 'both requests are logged' or diag @lines;
for my $line (@lines) {
    my $f = parse_combined($line);
    ok $f, 'a combined line' or next;
    is $f->{status}, 200, "$f->{request}: the status sent";
    ok $f->{bytes} =~ /\A\d+\z/ && $f->{bytes} >= 200_000 - 1000 && $f->{bytes} < $total,
        "$f->{request}: the bytes sent before the client left ($f->{bytes} of $total)";
}
is $server->stop, 0, 'the server stops cleanly';
done_testing;
