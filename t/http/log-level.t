# --log-level LEVEL drops kamado's lines less severe than LEVEL (error,
# warn, notice, info, debug; info by default); the app's own lines are
# never dropped.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test qw(start_server read_response eventually wait_until);
use Kamado::Test::Log qw(log_lines);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(qr/app died: boom/);

my $app = <<'APP';
use POSIX ();
sub {
    my $env = shift;
    warn "the app's own line\n";
    die "boom\n" if $env->{PATH_INFO} eq '/die';
    POSIX::_exit(3) if $env->{PATH_INFO} eq '/exit';    # the generation warns
    [200, ['Content-Type' => 'text/plain'], ['ok']];
}
APP
my %RANK = (error => 0, warn => 1, notice => 2, info => 3, debug => 4);

for my $level (qw(error warn info debug)) {
    subtest $level => sub {
        my $server = start_server(workers => 1, no_wait => 1,
            args => [$level eq 'info' ? () : ('--log-level', $level)], app => $app);
        my $res = read_response($server->send_get('/die'));
        is $res && $res->{status}, 500, 'an app that dies: 500';
        my ($worker) = $server->workers;
        $server->send_get('/exit');
        ok eventually(sub { my @w = $server->workers; @w == 1 && $w[0] != $worker }), 'a worker that exits is replaced';
        $res = read_response($server->send_get('/'));
        is $res && $res->{status}, 200, 'the new worker serves';
        wait_until { $server->log =~ /app died: boom/ } 'the error is logged';
        # the warning comes from the generation as it reaps: wait for it
        # where it is logged, give it the same time where it is not
        my $warned = eventually(sub { $server->log =~ /worker $worker exited with status 3/ }, $RANK{$level} >= 1 ? 20 : 2);
        is $warned ? 1 : 0, $RANK{$level} >= 1 ? 1 : 0, 'the warning about the worker ' . ($RANK{$level} >= 1 ? 'is' : 'is not') . ' logged';
        kill TTIN => $server->pid;    # the generation says so: notice
        my $noticed = eventually(sub { $server->log =~ /TTIN\/TTOU: 2 workers/ }, $RANK{$level} >= 2 ? 20 : 2);
        is $noticed ? 1 : 0, $RANK{$level} >= 2 ? 1 : 0, 'TTIN ' . ($RANK{$level} >= 2 ? 'is' : 'is not') . ' logged';
        is $server->stop, 0, 'TERM: exit 0';
        my $text = $server->log;
        # the supervisor's last word: info
        is $text =~ /generation 1 has finished/ ? 1 : 0, $RANK{$level} >= 3 ? 1 : 0,
            'the generation\'s end ' . ($RANK{$level} >= 3 ? 'is' : 'is not') . ' logged';
        my @lines = log_lines($text);
        is scalar(grep { $RANK{ $_->{level} } > $RANK{$level} } @lines), 0, "no line less severe than $level";
        is scalar(() = $text =~ /^the app's own line$/mg), 3, "the app's lines are all there";
        ok scalar(grep { $_->{level} eq 'debug' } @lines), 'debug lines: each worker says it started' if $level eq 'debug';
    };
}
done_testing;
