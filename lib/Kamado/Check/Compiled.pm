package Kamado::Check::Compiled;
use 5.024;
use strict;
use warnings;

use PPI ();
use Text::Balanced ();
use Kamado::Check::Hazard qw(hazard);
use Kamado::Check::Scope;

# The script's own hazards, from its compiled code (Kamado::Check::Probe:
# the facts of its op tree, what compiling it did) and the few its text
# shows (#! switches, __DATA__). Its verdict rests on these: the op tree
# is the code perl runs, without comments, strings or POD to mistake.

# fact => [id, mode it needs, message]; with full (kamado check) the
# neutralised ones come from PPI's reading instead (Kamado::Check::Flow...)
my %FACT = (
    core_exit      => [A2 => fork => '`CORE::exit` bypasses the exit override: it would end the worker'],
    posix_exit     => [A2 => fork => '`POSIX::_exit` bypasses the exit override: it would end the worker'],
    dollar_s       => [A3 => fork => 'reads $^S: it is true in-process (the server runs scripts inside an eval), so its die handler takes another path'],
    package_value  => [B3 => fork => '__PACKAGE__ as a value: in-process it is the script\'s own package, not main'],
    bless1         => [B3 => fork => 'one-argument `bless`: the object\'s class is the script\'s in-process package, not main'],
    main_stash     => [B3 => fork => 'walks the symbol table of main, which in-process is not the script\'s'],
    main_named     => [
        B3 => fork =>
            'names main:: (main->method, &main::name, $main::name): in-process the script\'s subs and variables are in its own package, not main'
    ],
    install_sub    => [
        B2 => perlrun => 'installs a sub at run time (*name = sub {...}): in-process it stays installed, '
            . 'with the first request\'s variables, for the requests after'
    ],
    eval_sub       =>
        [B2 => perlrun => 'a string eval that defines a named sub: in-process it stays for later requests'],
    match_once     =>
        [B8 => perlrun => '`m?...?` matches once: compiled once, it stays spent from one request to the next'],
    flip_flop      =>
        [B8 => perlrun => 'a flip-flop `..` in a condition: its state carries from one request to the next'],
    dynamic_require => [B4 => fork => 'pulls in a file named at run time: the check cannot read it'],
    symbolic_set    => [B13 => fork => 'sets %s, named at run time with a package in it: whose, the check cannot tell'],
    # neutralised
    fork       => [A5 => registry => '`fork`: the child\'s `exit` ends the child only'],
    chdir      => [C1 => registry => '`chdir`: each run starts in the script\'s directory'],
    alarm      => [E4 => registry => '`alarm`: a pending alarm is cancelled at the end of the run'],
    srand      => [E5 => registry => '`srand`: each worker seeds its own generator'],
    umask      => [E8 => registry => '`umask`: put back after each run'],
    setlocale  => [E8 => registry => '`setlocale`: each run starts in the locale of its environment'],
    select     => [E8 => registry => '`select`: the selected handle is put back after each run'],
    each       => [B8 => registry => '`each` iterator: package hashes, their iterators too, are put back after each run'],
    system     => [D3 => registry => 'runs a command: STDIN and STDOUT are real descriptors in every mode'],
    exec       => [D3 => registry => '`exec`: STDIN and STDOUT are real descriptors in every mode'],
    write      => [D3 => registry => '`write`: formats write to the real STDOUT'],
    flock      => [E7 => registry => '`flock`: the files a run left open are closed at its end'],
    caller_top => [B9 => registry => '`caller` at file scope: Kamado shows no frame past the script\'s top'],
    dollar0    => [C4 => registry => '$0 names this script in each run'],
    tempfile   => [E11 => registry => 'File::Temp: its files are removed at the end of each run'],
    cgi_fast   => [E1 => registry => 'CGI::Fast: its request loop goes round once per run, as under CGI'],
    end_block  => [B7 => registry => 'an END block: Kamado runs it after each run'],
);

sub hazards {
    my ($class, $probe, $script, $c) = @_;
    my @h;
    my %has = map { ($_->[0] => 1) } ($probe->{facts} // [])->@*;
    my %said;
    for my $f (($probe->{facts} // [])->@*) {
        my ($kind, $file, $line, $detail) = @$f;
        my ($id, $needs, $message) = ($FACT{$kind} // next)->@*;
        # (an exit that skips the override, in a script that forks: the child's)
        ($needs, $message) = (registry => "`_exit` after `fork`: the child ends, not the worker")
            if $kind =~ /exit\z/ && $has{fork};
        next if $needs eq 'registry' && ($c->{full} || $said{$kind}++);
        $message = "pulls in a file named at run time ($detail, line $line): the check cannot read it"
            if $kind eq 'dynamic_require';
        $message = sprintf $message, $detail if $kind eq 'symbolic_set';
        push @h, hazard($id => $file, $line, $needs => $message);
    }
    if ($has{flush} && $has{sleep}) {
        my ($wait) = grep { $_->[0] eq 'sleep' } $probe->{facts}->@*;
        push @h, hazard(D5 => $wait->[1], $wait->[2], fork =>
            'flushes its output and waits: a page that streams needs a process of its own');
    }
    if ($has{warnings_to_browser} && Kamado::Check::IO::carp_leaks($c)) {
        my ($w) = grep { $_->[0] eq 'warnings_to_browser' } $probe->{facts}->@*;
        push @h, hazard(E1 => $w->[1], $w->[2], fork => "CGI::Carp $c->{carp_version} warningsToBrowser: its buffer carries "
            . "one request's warnings into the next (CVE-2026-120634, fixed in CGI.pm 5.00)");
    }
    my %closure_seen;
    for my $cl (($probe->{closures} // [])->@*) {
        my ($file, $line, $sub, $names) = @$cl;
        next if $closure_seen{$file}++ >= 3;
        push @h, hazard(B1 => $file, $line, registry => "sub $sub uses the file's @$names: Kamado points it at each run's variables");
    }
    for my $name (($probe->{sig} // [])->@*) {
        push @h, hazard($name eq '__DIE__' ? 'A3' : 'E4', $script, 1, registry =>
            "sets \$SIG{$name} while compiling: kept with the script, for its runs only");
    }
    if ($probe->{warn_handler}) {
        push @h, hazard(A3 => $script, 1, registry =>
            'sets $SIG{__WARN__} while compiling (CGI::Carp): kept with the script, for its runs only');
    }
    my %env_seen;
    for my $r (($probe->{env_read} // [])->@*) {
        my ($name, $file, $line) = @$r;
        next if $env_seen{$name}++;
        push @h, hazard(B6 => $file, $line, perlrun =>
            "reads \$ENV{$name} while compiling: kept compiled, the first request's value would serve every later one");
    }
    my %volatile_seen;
    for my $v (($probe->{volatile} // [])->@*) {
        my ($name, $file, $line) = @$v;
        next if $volatile_seen{"$file $line"}++;
        push @h, hazard(B6 => $file, $line, perlrun =>
            "a compile-time value from `$name`: kept compiled, it would stay the first request's");
    }
    for my $k (($probe->{keep} // [])->@*) {
        push @h, hazard(B8 => $k->[0], $k->[1], perlrun => 'a /o pattern that interpolates: compiled once, it keeps the first request\'s value');
    }
    for my $k (($probe->{kept_closures} // [])->@*) {
        my ($file, $line, $sub, $names, $scope) = @$k;
        push @h,
            hazard(B1 => $file, $line, perlrun => "sub $sub uses @$names of $scope, not the file's: "
                . 'Kamado cannot point it at each run\'s variables, so it keeps the first request\'s');
    }
    for my $s (($probe->{state} // [])->@*) {
        push @h, hazard(B8 => $s->[0], $s->[1], perlrun => "state $s->[2]: it keeps its value from one request to the next");
    }
    if ($probe->{exit_compiling}) {
        push @h, hazard(A1 => $script, 1, registry => '`exit` while compiling: the script is compiled (and exits) again on its next request');
    }
    return @h;
}

# an assignment to a package-qualified variable, not local ($A::b = 1, $A::b{x} .= ...)
my $SETS_QUALIFIED =
    qr/^.*?(?<!local )([\$\@%*](?:\w+::)+\w+)(?:\{[^}]*\}|\[[^\]]*\])?\s*(?:[-+*\/.|&^x]|\|\||&&|\/\/)?=[^=~>]/m;

# What the script's text shows: the switches of its #! line, __DATA__.
sub text_hazards {
    my ($class, $f, $c) = @_;
    my @h;
    if ($c->{switches} && (my @bad = grep { !/\A-[wl]+\z/ } $c->{switches}->@*)) {
        push @h, hazard(E10 => $f->{path}, 1, fork => "#! switches @bad: they cannot be turned on in a running perl");
    }
    # B13 while compiling: another package's variables set in a BEGIN
    # block stay set for the worker's later scripts (each block read with PPI)
    my @own = $f->{text} =~ /^\s*package\s+([\w:]+)\s*;/mg;
    while ($f->{text} =~ /\bBEGIN\s*(?=\{)/g) {
        my $at = pos $f->{text};
        # (a copy: extract_bracketed takes what it returns out of its argument)
        my $rest = substr $f->{text}, $at;
        my $block = Text::Balanced::extract_bracketed($rest, '{}"\'') or next;
        next unless $block =~ /::/;
        my $line = (substr($f->{text}, 0, $at) =~ tr/\n//) + 1;
        my $doc = PPI::Document->new(\"BEGIN $block", readonly => 1) or next;
        push @h, Kamado::Check::Scope::foreign($doc, $f->{path}, \@own, line => $line);
    }
    # (at run time, put back after each run; with full, PPI's reading says where)
    if (!$f->{doc} && $f->{text} =~ $SETS_QUALIFIED) {
        my ($name, $line) = ($1, (substr($f->{text}, 0, $-[0]) =~ tr/\n//) + 1);
        my $said = grep { $_->{id} eq 'B13' && $_->{line} == $line } @h;
        my $own = $name =~ /\A.(?:main|Kamado)::/ || grep { $name =~ /\A.\Q$_\E::\w+\z/ } @own;
        my $message = "sets $name, another package's variable: put back after each run";
        push @h, hazard(B13 => $f->{path}, $line, registry => $message) unless $said || $own;
    }
    if (defined $f->{data} && !$f->{doc}) {
        push @h, hazard(D8 => $f->{path}, ($f->{text} =~ tr/\n//) + 1, registry => '__END__/__DATA__: DATA is read afresh in each run');
    }
    return @h;
}

1;
__END__

=head1 NAME

Kamado::Check::Compiled - kamado check: the script's hazards from its compiled code

=cut
