# Under systemd with the output going to the journal ($JOURNAL_STREAM
# names STDERR), kamado's lines carry their syslog priority as a "<N>"
# prefix, which journald reads, and no time of their own (journald
# stamps them); the app's lines are left alone. With --error-log FILE,
# STDERR is that file, no longer the journal: lines there have their time.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response wait_until);
use Kamado::Test::HTTP qw(slurp);
use Kamado::Test::Log qw(log_lines);

my $app = <<'APP';
sub {
    my $env = shift;
    warn "the app's own line\n";
    die "boom\n" if $env->{PATH_INFO} eq '/die';
    [200, ['Content-Type' => 'text/plain'], [$env->{'kamado.request_id'}]];
}
APP
my %SD = (error => 3, warn => 4, notice => 5, info => 6, debug => 7);

my $server = start_server(workers => 1, journal => 1, app => $app);
my $res = read_response($server->send_get('/die'));
is $res && $res->{status}, 500, 'an app that dies: 500';
wait_until { $server->log =~ /app died/ } 'its line is logged';
my @lines = split /\n/, $server->log;
my @kamado = grep { !/^the app's own line$/ } @lines;
ok scalar(@kamado) >= 2, 'the ready line and the error';
my @bad = grep { !/^<(\d)>\[(\w+)\] (?:supervisor|generation|worker) \d+(?: \[\S+\])?: / || $1 != $SD{$2} } @kamado;
is_deeply \@bad, [], 'each starts with its priority, then its level, role and pid: no time';
my ($died) = grep { /app died: boom$/ } @kamado;
like $died, qr{^<3>\[error\] worker \d+ \[[0-9a-f]{13}-\d+-\d+\]: GET /die HTTP/1\.1: app died: boom$}, 'the error, priority 3, with the request id';
is scalar(grep { /^the app's own line$/ } @lines), 1, "the app's line as it wrote it";
is $server->stop, 0, 'TERM: exit 0';

my $dir = File::Temp->newdir;
my $file = "$dir/error.log";
$server = start_server(workers => 1, journal => 1, no_wait => 1, args => ['--error-log', $file], app => $app);
wait_until { (slurp($file) // '') =~ /accepting connections/ } 'with --error-log, lines go to the file';
my @in_file = log_lines(slurp($file));
ok @in_file && !grep({ $_->{message} =~ /^<\d>/ } @in_file), 'with their time, no priority: the file is not the journal';
is $server->stop, 0, 'TERM: exit 0';
done_testing;
