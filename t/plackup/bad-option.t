# A bad Kamado option given to plackup -s Kamado stops plackup at once,
# non-zero, with one line naming the option (and its range), before
# anything is bound: the port plackup is told to listen on is held by the
# test, so a server that bound first would say "Address already in use".
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::IP;
use Kamado::Test qw(app_file);
use Kamado::Test::Plackup qw(run_plackup);

my $dir = tempdir(CLEANUP => 1);
my $app = app_file('sub { [200, [], ["ok"]] }');
my $taken = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 5) or die "listen: $@";
my $port = $taken->sockport;

for my $case (
    [['--workers', '100000'],        qr/^kamado: --workers must be an integer from 0 to 4096, not '100000'$/],
    [['--workers', 'two'],           qr/^kamado: --workers must be an integer from 0 to 4096, not 'two'$/],
    [['--max-connections', '0'],     qr/^kamado: --max-connections must be an integer from 1 to 1048576, not '0'$/],
    [['--request-timeout', '1e308'], qr/^kamado: --request-timeout must be a number from 0 to 86400, not '1e308'$/],
    [['--max-reqs-per-child', '-1'], qr/^kamado: --max-reqs-per-child must be an integer from 0 to 2147483647, not '-1'$/],
    [['--cgi-bin', "$dir/none"],     qr/^kamado: --cgi-bin \S+: '\S+' is not a directory$/],
    [['--cgi-bin', $dir, '--cgi-mode', 'fast'], qr/^kamado: --cgi-mode must be one of .*, not 'fast'$/],
    [['--pool', 'ai'],               qr/^kamado: --pool 'ai'/],
) {
    my ($args, $re) = @$case;
    subtest "@$args" => sub {
        my $r = run_plackup({ timeout => 10 }, '--host', '127.0.0.1', '--port', $port, @$args, $app);
        ok !$r->{timed_out}, 'exits at once, without serving';
        isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
        like $r->{stderr}, qr/\A[^\n]*\n\z/, 'one line on stderr';
        like $r->{stderr}, $re, 'naming the option' or diag $r->{stderr};
    };
}
ok $taken->opened, 'the port is still ours';
done_testing;
