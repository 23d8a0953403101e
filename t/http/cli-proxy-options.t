# --trusted-proxy, --proxy-protocol and --proxy-protocol-from refuse what they cannot use with a
# one-line message naming the option and a non-zero exit, before anything
# is served: a value that is not an address or block, and an address
# that names no listener.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test::CLI qw(run_kamado);

my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/app.psgi" or die;
print $fh "sub { [200, [], ['ok']] }\n";
close $fh;

for my $case (
    [['--trusted-proxy', '10.0.0.0/33'], qr/^kamado: --trusted-proxy '10\.0\.0\.0\/33' is not an address or CIDR block/],
    [['--trusted-proxy', '10.0.0.0/8', '--trusted-proxy', 'proxy.example'], qr/^kamado: --trusted-proxy 'proxy\.example' is not/],
    [['--trusted-proxy', '::1/129'], qr/^kamado: --trusted-proxy '::1\/129' is not/],
    [['--trusted-proxy', '300.1.1.1'], qr/^kamado: --trusted-proxy '300\.1\.1\.1' is not/],
    [['--trusted-proxy'], qr/^kamado: Option trusted-proxy requires an argument/],
    [['--proxy-protocol', '127.0.0.1:1'], qr/^kamado: --proxy-protocol 127\.0\.0\.1:1 names no listener \(listening at 127\.0\.0\.1:\d+\)$/],
    [['--proxy-protocol', 'nonsense'], qr/^kamado: --proxy-protocol nonsense names no listener/],
    [['--proxy-protocol', '127.0.0.1:1', '--proxy-protocol-from', '10.0.0.0/33'],
        qr/^kamado: --proxy-protocol-from '10\.0\.0\.0\/33' is not an address or CIDR block/],
    [['--proxy-protocol-from', '10.0.0.0/8'], qr/^kamado: --proxy-protocol-from needs --proxy-protocol/],
) {
    my ($args, $want) = @$case;
    my $r = run_kamado('--listen', '127.0.0.1:0', "$dir/app.psgi", @$args);
    ok !$r->{timed_out}, "@$args: exits at once";
    isnt $r->{status}, 0, "@$args: non-zero exit";
    like $r->{stderr}, $want, "@$args: says why";
    is scalar(() = $r->{stderr} =~ /\n/g), 1, "@$args: in one line" or diag $r->{stderr};
    unlike $r->{stderr}, qr/accepting connections/, "@$args: never served";
}
done_testing;
