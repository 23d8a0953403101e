# ./dev/demo as README's quick start runs it (on free ports): the index
# links the status page, which answers with the demo's four workers, the
# CGI example runs, and the access log arrives on the terminal (stdout).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use HTTP::Tiny;
use JSON::PP ();
use POSIX ();
use Kamado::Test qw(eventually);
use Kamado::Test::AccessLog qw(parse_combined);
use Kamado::Test::Plackup qw(free_port);

my $dir = File::Temp->newdir;
my ($port, $status_port) = (free_port(), free_port());
my $pid = fork // die "fork: $!";
if (!$pid) {
    POSIX::setpgid(0, 0);
    open STDOUT, '>', "$dir/stdout" or die $!;
    open STDERR, '>', "$dir/stderr" or die $!;
    $ENV{KAMADO_DEMO_PORT} = $port;
    $ENV{KAMADO_DEMO_STATUS_PORT} = $status_port;
    exec './dev/demo' or POSIX::_exit(127);
}
# the demo execs kamado, so $pid is the supervisor once it runs
END { if ($pid) { kill TERM => $pid; waitpid $pid, 0 } }

my $http = HTTP::Tiny->new(timeout => 10);
my $index;
ok eventually(sub { $index = $http->get("http://127.0.0.1:$port/"); $index->{status} == 200 }, 120),
    'the demo serves its index' or diag `cat $dir/stdout $dir/stderr`;
like $index->{content}, qr{<a href="http://127\.0\.0\.1:$status_port/">}, 'which links the status page';
like $index->{content}, qr{href="http://127\.0\.0\.1:$status_port/metrics"}, 'and the metrics';

my $res = $http->get("http://127.0.0.1:$port/cgi-bin/counter.cgi");
is $res->{status}, 200, 'the CGI example runs';
my $page = $http->get("http://127.0.0.1:$status_port/");
is $page->{status}, 200, 'the status page answers';
like $page->{content}, qr/<table/, 'as an HTML page';
my $json = $http->get("http://127.0.0.1:$status_port/status.json");
is scalar @{ JSON::PP->new->decode($json->{content})->{workers} }, 6,
    'status.json shows the six workers (four, and one in each async pool)';

# the async pools: an answer streamed from the fake upstream, the chat page
like $index->{content}, qr{href="/ai/"}, 'the index links the streamed answer';
like $http->get("http://127.0.0.1:$port/ai/")->{content}, qr/new EventSource\('\/ai\/stream/, 'whose page streams it';
my $answer = $http->get("http://127.0.0.1:$port/ai/stream?tokens=5&interval=0.01");
is $answer->{headers}{'content-type'}, 'text/event-stream', 'the answer comes as server-sent events';
is scalar(() = $answer->{content} =~ /^data: /mg), 6, 'five tokens and the end, through the upstream the demo serves';
like $http->get("http://127.0.0.1:$port/chat/")->{content}, qr/new WebSocket/, 'the chat page';

my @lines;
ok eventually(sub {
    open my $fh, '<', "$dir/stdout" or return 0;
    @lines = grep { defined } map { parse_combined($_) } <$fh>;
    grep { $_->{request} eq 'GET /cgi-bin/counter.cgi HTTP/1.1' } @lines;
}, 10), 'the access log is on the terminal, in combined format';
my ($cgi) = grep { $_->{request} eq 'GET /cgi-bin/counter.cgi HTTP/1.1' } @lines;
is $cgi->{status}, 200, 'with the status';

is kill(TERM => $pid), 1, 'TERM to the demo';
is waitpid($pid, 0), $pid, 'it exits';
is $? >> 8, 0, 'cleanly';
undef $pid;
done_testing;
