# A format the compiler refuses, or a file that cannot be opened, stops
# the start at once: a one-line message naming the option, a non-zero
# exit, nothing served; through kamado and through plackup -s Kamado. A
# bad format is refused even without --access-log.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test::CLI qw(run_kamado);
use Kamado::Test::Plackup qw(run_plackup free_port);

my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/app.psgi" or die;
print $fh "sub { [200, [], ['ok']] }\n";
close $fh;

my @cases = (
    [['--access-log', "$dir/log", '--access-log-format', '%h %Z'], qr/\Akamado: --access-log-format '%h %Z': %Z not supported\.?\n\z/],
    [['--access-log-format', '%{x}Q'], qr/\Akamado: --access-log-format '%\{x\}Q': \{x\}Q not supported\.?\n\z/],
    [['--access-log', "$dir/log", '--access-log-format', 'ends with \\'], qr/\Akamado: --access-log-format 'ends with \\': .+\n\z/],
    [['--access-log', "$dir/no/such/dir/log"], qr/\Akamado: can't open --access-log \S+no\/such\/dir\/log: No such file or directory\n\z/],
);
for my $case (@cases) {
    my ($args, $want) = @$case;
    my $r = run_kamado('--listen', '127.0.0.1:0', @$args, "$dir/app.psgi");
    ok !$r->{timed_out} && $r->{status} > 0, "kamado @$args: exits non-zero at once";
    like $r->{stderr}, $want, '  with one line naming the option';
    my $port = free_port();
    $r = run_plackup('-s', 'Kamado', '--port', $port, map({ s/\A--access-log\z/--access_log/r } @$args), "$dir/app.psgi");
    ok !$r->{timed_out} && $r->{status} > 0, "plackup -s Kamado @$args: exits non-zero at once";
    like $r->{stderr}, qr/kamado: .*--access-log/, '  naming the option' or diag $r->{stderr};
}
ok !-e "$dir/log", 'no log file was made';
done_testing;
