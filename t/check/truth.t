# No false "safe" verdict: for every hazard fixture of t/cgi (cases.pl),
# kamado check's verdict is never a faster mode than the truth, the
# fastest mode that gives plain CGI's output over the fixture's requests
# (cases.pl's registry and perlrun fields, which t/cgi-runner/fixtures.t
# holds the server to: a hash documents how the mode differs; anything
# else, or nothing, means fixtures.t compares the mode's output with
# plain CGI's, byte for byte).
use strict;
use warnings;
use Test::More;
use Kamado::Check;
use Kamado::Check::Hazard qw(rank);

my @cases = do './t/cgi/cases.pl' or die "cases.pl: $@";
my (@table, %over);
for my $case (@cases) {
    my $same = sub { ref $case->{ $_[0] } ne 'HASH' };
    my $truth = $same->('registry') ? 'registry' : $same->('perlrun') ? 'perlrun' : 'fork';
    # (what the #! line allows: -T and other switches run in fork mode whatever is asked)
    my $r = Kamado::Check->script("t/cgi/$case->{script}");
    ok rank($r->{mode}) >= rank($truth), "$case->{script}: $r->{mode}, not faster than the truth ($truth)"
        or diag $r->{reason};
    push @table, sprintf '%-30s %-8s %-8s %s', $case->{script}, $r->{mode}, $truth,
        rank($r->{mode}) > rank($truth) ? "over-cautious: $r->{reason}" : '';
}
note "script                         verdict  truth\n", join "\n", @table;
done_testing;
