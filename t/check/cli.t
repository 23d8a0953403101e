# kamado check on the command line: the text report (a line per script,
# its hazards, a summary), --json, --sarif, --write-mode-files, and the
# exit status (2 naming what could not be read).
use strict;
use warnings;
use Test::More;
use File::Copy ();
use File::Temp ();
use JSON::PP ();
use lib 't/lib';
use Kamado::Test::CLI qw(run_kamado $ROOT);

my $fx = "$ROOT/t/check/fixtures";
my @two = ("$fx/scope-state.cgi", "$fx/scope-state-clean.cgi");

my $r = run_kamado('check', @two);
is $r->{status}, 0, 'exit 0: every script read' or diag $r->{stderr};
like $r->{stdout}, qr{^perlrun  \Q$fx\E/scope-state\.cgi \(1 hazard, 1 not neutralised\): B8 at scope-state\.cgi line 3: state \$n}m,
    'a line per script: mode, path, hazards, reason';
like $r->{stdout}, qr{^    B8   scope-state\.cgi:3 state \$n: it keeps its value}m, 'its hazards under it';
like $r->{stdout}, qr{^registry \Q$fx\E/scope-state-clean\.cgi \(1 hazard, 0 not neutralised\)}m, 'the clean twin';
like $r->{stdout}, qr{^    B1   scope-state-clean\.cgi:\d+ \[neutralised\] }m, 'a neutralised hazard says so';
like $r->{stdout}, qr{^2 scripts: 1 registry, 1 perlrun\n\z}m, 'the summary line';

$r = run_kamado('check', '--json', @two);
is $r->{status}, 0, '--json: exit 0';
my $json = JSON::PP->new->decode($r->{stdout});
is ref $json, 'ARRAY', '--json: an array';
is_deeply [map { $_->{script} } @$json], \@two, '... of the scripts, by absolute path';
is_deeply [map { $_->{mode} } @$json], [qw(perlrun registry)], '... with their modes';
like $json->[0]{reason}, qr/\AB8 /, '... and reasons';
is_deeply [sort keys $json->[0]{hazards}[0]->%*], [qw(file id line message neutralised)], 'a hazard: id, file, line, message, neutralised';
ok JSON::PP::is_bool($json->[0]{hazards}[0]{neutralised}), 'neutralised is a JSON boolean';

$r = run_kamado('check', '--sarif', @two);
my $sarif = JSON::PP->new->decode($r->{stdout});
is $sarif->{version}, '2.1.0', '--sarif: SARIF 2.1.0';
my @results = $sarif->{runs}[0]{results}->@*;
ok scalar(grep { $_->{ruleId} eq 'B8' && $_->{level} eq 'warning'
    && $_->{locations}[0]{physicalLocation}{region}{startLine} == 3 } @results), '... the hazard as a warning at its line';
ok scalar(grep { $_->{ruleId} eq 'verdict' && $_->{message}{text} =~ /perlrun/ } @results), '... and the verdict';

$r = run_kamado('check', "$fx/no-such.cgi", $two[0]);
is $r->{status}, 2, 'a path that does not exist: exit 2';
like $r->{stderr}, qr{kamado check: \Q$fx\E/no-such\.cgi: no such file or directory}, '... naming it';
like $r->{stdout}, qr{^1 script: 1 perlrun$}m, '... the others still checked';

$r = run_kamado('check');
is $r->{status}, 2, 'no PATH: exit 2';
like $r->{stderr}, qr/usage: kamado check/, '... with the usage';

# --write-mode-files: the verdicts as .kamado-cgi files, never over the
# administrator's own
my $tmp = File::Temp::tempdir(CLEANUP => 1);
mkdir "$tmp/$_" for qw(a b);
File::Copy::copy("$fx/$_", "$tmp/a/$_") for qw(scope-state.cgi scope-state-clean.cgi process-taint.cgi);
File::Copy::copy("$fx/scope-state.cgi", "$tmp/b/x.cgi");
open my $own, '>', "$tmp/b/.kamado-cgi" or die; print $own "mode registry\n"; close $own;
$r = run_kamado('check', '--write-mode-files', $tmp);
is $r->{status}, 2, '--write-mode-files with a .kamado-cgi of the administrator\'s: exit 2';
like $r->{stderr}, qr{\Q$tmp\E/b/\.kamado-cgi: not written by kamado check, left alone}, '... naming it';
my $written = do { open my $fh, '<', "$tmp/a/.kamado-cgi" or die "not written: $r->{stderr}"; local $/; <$fh> };
like $written, qr/\A# written by kamado check/, 'a .kamado-cgi written';
like $written, qr/^mode registry scope-state-clean\.cgi$/m, '... registry for the clean script';
like $written, qr/^mode perlrun scope-state\.cgi$/m, '... perlrun for the state one';
like $written, qr/^mode fork process-taint\.cgi$/m, '... fork for -T';
is do { open my $fh, '<', "$tmp/b/.kamado-cgi"; local $/; <$fh> }, "mode registry\n", 'the administrator\'s file untouched';
require Kamado::CGI::ModeFile;
my $mf = Kamado::CGI::ModeFile->new(root => $tmp, modes => [qw(fork exec registry perlrun auto)]);
is scalar $mf->mode_for("$tmp/a", 'scope-state.cgi'), 'perlrun', 'the file written is one Kamado reads';
$r = run_kamado('check', '--write-mode-files', "$tmp/a");
is $r->{status}, 0, 'written again over its own file: exit 0' or diag $r->{stderr};

done_testing;
