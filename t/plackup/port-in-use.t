# plackup -s Kamado told to listen where another socket already does exits
# non-zero at once with one line naming the address: --host and --port,
# and plain plackup on its default :5000 (held here, or by whoever holds
# it already: either way it is taken).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use IO::Socket::IP;
use Socket qw(AF_INET);
use Kamado::Test qw(app_file);
use Kamado::Test::Plackup qw(run_plackup);

my $app = app_file('sub { [200, [], ["ok"]] }');
my $taken = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 5) or die "listen: $@";
my $port = $taken->sockport;
my $default = IO::Socket::IP->new(LocalPort => 5000, Family => AF_INET, Listen => 5, ReuseAddr => 1);
diag "port 5000 is held by another process: $@" unless $default;

for my $case ([['--host', '127.0.0.1', '--port', $port], "127.0.0.1:$port"], [[], ':5000']) {
    my ($args, $address) = @$case;
    subtest "plackup -s Kamado @$args" => sub {
        my $r = run_plackup({ timeout => 10 }, '-E', 'deployment', @$args, $app);
        ok !$r->{timed_out}, 'exits at once';
        isnt $r->{status}, 0, "non-zero exit status ($r->{status})";
        like $r->{stderr}, qr/\Akamado: Can't listen on \Q$address\E: Address already in use\n\z/,
            'one line naming the address' or diag $r->{stderr};
    };
}
ok $taken->opened, 'the port is still ours';
done_testing;
