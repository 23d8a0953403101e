# TERM with a great many workers (--workers 1500; the review's 4096 left
# 200 to 460 of them orphaned, holding the port): they all exit at once,
# and the generation must survive the storm of SIGCHLDs (a Perl handler
# counting more than 120 pending ones kills perl) and reap them all; a
# worker never blocks on the generation's notice pipe (4096 "retire"
# notices do not fit in it) nor holds its reading end. After TERM the
# server exits 0, no worker is left, and the port is free.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Kamado::Test qw(start_server eventually);
use Kamado::Test::Plackup qw(free_port);

my $n = $ENV{KAMADO_TEST_WORKERS} || 1500;
my $port = free_port();
my $server = start_server(workers => $n, self_bind => 1, port => $port,
    args => ['--listen', "127.0.0.1:$port"], app => 'sub { [200, ["Content-Type" => "text/plain"], ["ok"]] }');
ok eventually(sub { $server->workers >= $n }, 300), "$n workers are up";
my @workers = $server->workers;
is $server->stop('TERM', 120), 0, 'TERM: the server exits 0';
my @left = grep { my $c; open($c, '<', "/proc/$_/cmdline") && (scalar(<$c>) // '') =~ /^kamado worker/ } @workers;
is scalar(@left), 0, 'no worker is left' or diag scalar(@left) . ' left, such as ' . join ' ', @left[0 .. 4];
kill KILL => @left;
like $server->log, qr/generation 1 has finished$/m, 'the generation exited 0 (perl did not die of the SIGCHLDs)';
ok +IO::Socket::IP->new(LocalHost => "127.0.0.1", LocalPort => $port, Listen => 1, ReuseAddr => 1), "the port is free" or diag $server->log, `ss -ltnp | grep :$port`;
done_testing;
