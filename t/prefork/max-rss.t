# --max-rss: after a request that leaves the worker over the limit, the
# worker is replaced: that request is answered in full, the log names it,
# and the next request is served by a new worker.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);

my $server = start_server(workers => 1, args => ['--max-rss', 150], app => <<'APP');
my @hoard;
my $mb = 200;    # a variable: a constant 'x' x N would be built at compile time, in the generation
sub {
    my $env = shift;
    push @hoard, 'x' x ($mb * 1024 * 1024) if $env->{PATH_INFO} eq '/grow';    # kept: the worker grows
    [200, ['Content-Type' => 'text/plain'], [$$]];
}
APP

sub get { read_response($server->send_get($_[0]), timeout => 10) }

my $first = get('/small');
is $first && $first->{status}, 200, 'a small request';
my $again = get('/small');
is $again && $again->{body}, $first->{body}, 'the worker stays while it is small';
my $grow = get('/grow');
is $grow && $grow->{status}, 200, 'the request that grows the worker is answered';
is $grow && $grow->{body}, $first->{body}, 'by the same worker';
my $deadline = Time::HiRes::time() + 10;
my $next;
do { $next = get('/after') } until ($next && $next->{body} ne $first->{body}) || Time::HiRes::time() > $deadline;
isnt $next && $next->{body}, $first->{body}, 'a later request is served by a new worker';
like $server->log, qr{GET /grow HTTP/1\.1: resident size \d+ MB is over --max-rss 150 MB; replacing this worker},
    'the log names the request after which it happened';
unlike $server->log, qr/exited with/, 'the old worker exited cleanly';
done_testing;
