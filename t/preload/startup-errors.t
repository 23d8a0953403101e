# --startup FILE that is missing, or that dies or does not compile, stops
# kamado at start-up (non-zero exit, without serving) with one line naming
# the option and the file; plackup -s Kamado says the same.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp qw(tempdir);
use Kamado::Test::CLI qw(run_kamado);
use Kamado::Test::Plackup qw(run_plackup);

my $dir = tempdir(CLEANUP => 1);
my %file = ('dies.pl' => "die qq{no config here\\n};\n", 'syntax.pl' => "my \$x = ;\n");
for my $name (keys %file) {
    open my $fh, '>', "$dir/$name" or die;
    print $fh $file{$name};
    close $fh;
}
open my $fh, '>', "$dir/app.psgi" or die;
print $fh "sub { [200, [], ['x']] }\n";
close $fh;
my @listen = ('--listen', '127.0.0.1:0');

for my $case (['missing', "$dir/nope.pl", qr/no such file/],
              ['dies', "$dir/dies.pl", qr/no config here/],
              ['does not compile', "$dir/syntax.pl", qr/syntax error at \Q$dir\E\/syntax\.pl line 1/]) {
    my ($name, $file, $why) = @$case;
    for my $workers (2, 0) {
        my $r = run_kamado({ timeout => 15 }, @listen, '--workers', $workers, '--startup', $file, "$dir/app.psgi");
        ok !$r->{timed_out}, "$name, --workers $workers: exits";
        isnt $r->{status}, 0, "$name, --workers $workers: non-zero exit status ($r->{status})";
        like $r->{stderr}, qr{^kamado: --startup \Q$file\E: .*$why}m, "$name, --workers $workers: naming the option and file";
        unlike $r->{stderr}, qr/accepting connections/, "$name, --workers $workers: never served";
    }
}
my $r = run_plackup({ timeout => 15 }, '--listen', '127.0.0.1:0', '--startup', "$dir/dies.pl", "$dir/app.psgi");
isnt $r->{status}, 0, "plackup: non-zero exit status ($r->{status})";
like $r->{stderr}, qr{^kamado: --startup \Q$dir\E/dies\.pl: no config here}m, 'plackup: naming the option and file';
done_testing;
