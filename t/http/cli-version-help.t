# kamado --version (-v) prints the version on one line and exits 0;
# --help (-h) prints the manual, formatted (not the script's source, also
# where perldoc is not installed), numeric options with their ranges, and
# exits 0.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::CLI qw(run_kamado);

for my $arg ('--version', '-v') {
    my $r = run_kamado({ timeout => 10 }, $arg);
    is $r->{status}, 0, "$arg: exit status 0";
    like $r->{stdout}, qr/\AKamado \d+\.\d+\S* \(Perl v5\.\d+\.\d+\)\n\z/, "$arg: one line, Kamado's and Perl's versions";
    is $r->{stderr}, '', "$arg: nothing on stderr";
}
for my $arg ('--help', '-h') {
    my $r = run_kamado({ timeout => 10 }, $arg);
    is $r->{status}, 0, "$arg: exit status 0";
    like $r->{stdout}, qr/^NAME\n\s+kamado - a fast PSGI server$/m, "$arg: the manual's NAME section";
    like $r->{stdout}, qr/^OPTIONS\n/m, "$arg: its OPTIONS";
    like $r->{stdout}, qr/--listen/, "$arg: which list --listen";
    like $r->{stdout}, qr/^ +--max-connections N \(1 to 1048576\)\n +Connections one worker/m,
        "$arg: a numeric option's range on its line, its text below";
    unlike $r->{stdout}, qr/^use strict;|^=head1|^=item/m, "$arg: formatted, not the source";
    # (an =item right under another, without a blank line, is printed raw)
    unlike $r->{stdout}, qr/^.*(?:\s=[a-z]+\d?\b|\b[BCEFILSXZ]<).*$/m, "$arg: no POD markup left in the text"
        or diag grep { /\s=[a-z]+\d?\b|\b[BCEFILSXZ]</ } split /^/, $r->{stdout};
    like $r->{stdout}, qr/^ +--min-workers N \(1 to 4096\)\n +--max-workers N \(1 to 4096\)\n +Autoscaling/m,
        "$arg: --min-workers and --max-workers, each on its line";
    is $r->{stderr}, '', "$arg: nothing on stderr";
}
done_testing;
