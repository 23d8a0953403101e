# kamado check, one family of hazards at a time: each fixture of
# t/check/fixtures is caught (its hazard named, its verdict the safe mode)
# and its clean twin passes (registry, without that hazard).
use strict;
use warnings;
use Test::More;
use Kamado::Check;

my $dir = 't/check/fixtures';
# fixture => [verdict, hazard id it must report, neutralised?]; the clean
# twin (NAME-clean.cgi), when there is one, must be registry without a
# hazard of that id that is not neutralised
my @cases = (
    ['flow-posix-exit'      => fork     => 'A2', 0],
    ['flow-dollar-s'        => fork     => 'A3', 0],
    ['scope-package-value'  => fork     => 'B3', 0],
    ['scope-constant-time'  => perlrun  => 'B6', 0],
    ['scope-regex-o'        => perlrun  => 'B8', 0],
    ['scope-state'          => perlrun  => 'B8', 0],
    ['scope-module-state'   => fork     => 'B5', 0],
    ['scope-module-prints'  => fork     => 'B5', 0],
    ['scope-begin-closure'  => perlrun  => 'B1', 0],
    ['scope-nested-closure' => perlrun  => 'B1', 0],
    ['scope-match-once'     => perlrun  => 'B8', 0],
    ['scope-flip-flop'      => perlrun  => 'B8', 0],
    ['scope-main-named'     => fork     => 'B3', 0],
    ['scope-install-sub'    => perlrun  => 'B2', 0],
    ['scope-eval-sub'       => perlrun  => 'B2', 0],
    ['scope-dynamic-require' => fork    => 'B4', 0],
    ['scope-foreign-begin'  => fork     => 'B13', 0],
    ['scope-foreign-module' => fork     => 'B13', 0],
    ['scope-foreign-set'    => registry => 'B13', 1],
    ['scope-foreign-symbolic' => fork   => 'B13', 0],
    ['paths-chdir'          => registry => 'C1', 1],
    ['io-stream'            => fork     => 'D5', 0],
    ['io-warnings-to-browser' => fork   => 'E1', 0],
    ['io-cgi-fast'          => registry => 'E1', 1],
    ['process-setlocale'    => registry => 'E8', 1],
    ['process-taint'        => fork     => 'E10', 0],
    ['compiled-env'         => perlrun  => 'B6', 0],
    ['compiled-closure'     => registry => 'B1', 1],
);
# (the verdict is the same whether the script's own source is read with
# PPI, as kamado check does, or not, as auto mode does)
for my $full (0, 1) {
for my $case (@cases) {
    my ($name, $mode, $id, $neutralised) = @$case;
    my $r = Kamado::Check->script("$dir/$name.cgi", full => $full);
    is $r->{mode}, $mode, "$name: $mode" . ($full ? " (full)" : "") or diag explain $r;
    my @found = grep { $_->{id} eq $id && !!$_->{neutralised} == !!$neutralised } $r->{hazards}->@*;
    ok @found, "$name: $id reported" . ($neutralised ? ' as neutralised' : '');
    like $r->{reason}, qr/\Q$id\E/, "$name: the reason names $id" unless $mode eq 'registry';
    my $clean = "$dir/$name-clean.cgi";
    next unless -f $clean;
    my $c = Kamado::Check->script($clean, full => $full);
    is $c->{mode}, 'registry', "$name-clean: registry" or diag explain $c;
    ok !grep({ $_->{id} eq $id && !$_->{neutralised} } $c->{hazards}->@*), "$name-clean: no open $id";
}
}

my $error = Kamado::Check->script("$dir/compiled-error.cgi");
is $error->{mode}, 'fork', 'a script that does not compile: fork';
like $error->{error}, qr/syntax error at \S*compiled-error\.cgi line 2/, '... with its compile error';
like $error->{reason}, qr/\Adoes not compile: syntax error/, '... in its reason';

my $sh = Kamado::Check->script("$dir/exec-shell.cgi");
is $sh->{mode}, 'exec', 'a #!/bin/sh script: exec';
like $sh->{reason}, qr{run by /bin/sh}, '... saying why';

# the files a verdict rests on: the script and what it pulls in
my $lib = Kamado::Check->script("$dir/scope-module-state.cgi");
ok scalar(grep { m{/lib/Counter\.pm\z} } keys $lib->{files}->%*), 'the module of the tree is among the files of the verdict';

done_testing;
