# A worker that dies in the middle of a request, by an `exit` in the app, a
# segfault or an abort() from C: only that request fails (a 500, the worker's
# last words, then its connection closes), the generation logs how the
# worker ended and replaces it, and the next requests are served.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(read_until_close);

my $server = start_server(workers => 2, app => <<'APP');
use POSIX ();
sub {
    my $env = shift;
    exit 3 if $env->{PATH_INFO} eq '/exit';
    kill SEGV => $$ if $env->{PATH_INFO} eq '/segv';
    POSIX::abort() if $env->{PATH_INFO} eq '/abort';
    [200, ['Content-Type' => 'text/plain'], [$$]];
}
APP

sub pid_of_next {
    my $res = read_response($server->send_get('/'), timeout => 30);
    $res && $res->{status} == 200 ? $res->{body} : undef;
}

for my $case (['/exit', 'status 3'], ['/segv', 'signal 11'], ['/abort', 'signal 6']) {
    my ($path, $how_logged) = @$case;
    my $before = () = $server->log =~ /exited with/g;
    my ($got, $how) = read_until_close($server->send_get($path), 30);
    like $got, qr{\AHTTP/1\.1 500 Internal Server Error\r\n}, "$path: a 500";
    is $how, 'eof', "$path: then the connection was closed";
    my $deadline = Time::HiRes::time() + 30;
    Time::HiRes::sleep(0.02) until (() = $server->log =~ /exited with/g) > $before || Time::HiRes::time() > $deadline;
    like $server->log, qr/worker \d+ exited with \Q$how_logged\E$/m, "$path: the generation logged it ($how_logged)";
    my @served = grep { defined } map { pid_of_next() } 1 .. 10;
    is scalar @served, 10, "$path: the next requests are served";
    $deadline = Time::HiRes::time() + 30;
    Time::HiRes::sleep(0.02) until $server->workers == 2 || Time::HiRes::time() > $deadline;
    is scalar(my @w = $server->workers), 2, "$path: two workers again";
}
is $server->stop, 0, 'TERM: exit 0';
done_testing;
