# xt/apps.t - xt/apps/run as a test: every real application of the corpus,
# in every Kamado CGI mode, gives what Apache mod_cgi gives (slow: minutes;
# not in ./dev/test). An application that is not installed or fetched is a
# skip, with what to do, never a pass.
#   prove xt/apps.t            (XT_APPS=awstats,gitweb to pick, XT_APPS_MODES=fork,registry)
use strict;
use warnings;
use Test::More;
use File::Temp ();

plan skip_all => 'needs root (Apache and the scripts run as www-data) and ./dev/build'
    unless $> == 0 && -f 'blib/lib/Kamado.pm';
my $out = File::Temp->new;
my @args = ('--results', "$out");
push @args, '--apps', $ENV{XT_APPS} if $ENV{XT_APPS};
push @args, '--modes', $ENV{XT_APPS_MODES} if $ENV{XT_APPS_MODES};
my $log = `$^X xt/apps/run @args 2>&1`;
my $report = do { local $/; open my $fh, '<', "$out" or die $!; <$fh> } // '';
ok length $report, 'xt/apps/run wrote its table' or diag $log;
my ($head, undef, @rows) = grep { /^\|/ } split /\n/, $report;
my (undef, undef, undef, @modes) = split /\s*\|\s*/, $head // '';
my %first;    # "app mode" => its first difference
while ($report =~ /^- \*\*(\S+)\*\*, (\S+): (.*)$/mg) { $first{"$1 $2"} = $3 }
for my $row (@rows) {
    my (undef, $app, undef, @cells) = split /\s*\|\s*/, $row;
    for my $i (0 .. $#modes) {
        SKIP: {
            skip "$app: " . ($report =~ /^- \Q$app\E: (.*)$/m ? $1 : 'not available'), 1 if $cells[$i] eq 'SKIPPED';
            is $cells[$i], 'identical', "$app, $modes[$i]: as under Apache mod_cgi"
                or diag $first{"$app $modes[$i]"} // '';
        }
    }
}
done_testing;
