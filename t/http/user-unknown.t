# --user or --group naming nobody on this system: kamado exits at once,
# non-zero, with one line naming the option and the name, before it
# binds or serves.
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

for my $case (['--user', 'kamado-no-such-user'], ['--group', 'kamado-no-such-group'], ['--user', '4000000000']) {
    my ($opt, $name) = @$case;
    my $r = run_kamado({ timeout => 6 }, $opt, $name, '--listen', "$dir/s.sock", '--workers', 1, "$dir/app.psgi");
    ok !$r->{timed_out}, "$opt $name: exits at once";
    isnt $r->{status}, 0, "$opt $name: non-zero exit status";
    like $r->{stderr}, qr/\Akamado: \Q$opt $name\E: no such \w+\n\z/, "$opt $name: one line naming it";
    ok !-e "$dir/s.sock", "$opt $name: nothing bound";
}
done_testing;
