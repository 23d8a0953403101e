package Kamado::Check;
use 5.024;
use strict;
use warnings;

use Cwd ();
use Kamado::CGI::Source;
use Kamado::Check::Hazard qw(hazard rank);
use Kamado::Check::Probe;
use Kamado::Check::Source;
use Kamado::Check::Compiled;
use Kamado::Check::Flow;
use Kamado::Check::IO;
use Kamado::Check::Paths;
use Kamado::Check::Process;
use Kamado::Check::Scope;

# kamado check: the fastest CGI mode that runs a script as plain CGI
# would, from the hazards of doc/CGI-HAZARDS.md it shows: its source and
# the files of its tree it pulls in (Kamado::Check::Source, read with
# PPI, looked at by one module per family of hazards), and what compiling
# it as the in-process modes do shows (Kamado::Check::Probe). Each hazard
# says the fastest mode that neutralises it; the script's verdict is the
# slowest of them. What the check cannot see (a file named at run time, a
# script that does not compile) gives the safe mode: a false "registry"
# is the one mistake it must not make.

our @FAMILIES = map { "Kamado::Check::$_" } qw(Flow Scope Paths IO Process);

# script(FILE, full => 1) -> { script, mode, reason, hazards => [...],
# files => { path => key } (what, changed, makes the verdict stale),
# error }. The verdict comes from the compiled script (the probe's walk
# of its ops) and the PPI reading of the files it pulls in; with full
# (kamado check), the script's own source is read with PPI too, for the
# hazards Kamado neutralises (they do not change the verdict: reading a
# long script with PPI takes seconds, the probe a tenth of one).
sub script {
    my ($class, $file, %a) = @_;
    my $path = Cwd::realpath($file) // $file;
    my %r = (script => $path, hazards => [], files => { $path => Kamado::CGI::Source::file_key($path) });
    my $first = do { open my $fh, '<:raw', $path or return { %r, mode => 'fork', error => "cannot read: $!",
        reason => "cannot be read: $!" }; scalar <$fh> } // '';
    my ($perl, @switches) = Kamado::CGI::Source::shebang($first);
    if (!$perl) {
        my ($interp) = $first =~ /\A#!\s*(\S+)/;
        return { %r, mode => 'exec', reason => $interp ? "run by $interp, not perl" : 'a program, not a perl script' };
    }
    my $probe = Kamado::Check::Probe->run($path);
    my $source = Kamado::Check::Source->read($path, names => $probe->{requires}, libs => $probe->{libs}, fast => !$a{full});
    $source->add($_) for ($probe->{inc} // [])->@*;
    my %c = (switches => \@switches, carp_version => $probe->{carp_version}, full => $a{full});
    my @h;
    for my $f ($source->files) {
        if ($f->{is_script}) {
            push @h, Kamado::Check::Compiled->text_hazards($f, \%c);
            # (the script's verdict is its compiled code's: what PPI adds
            # is what Kamado neutralises)
            push @h, grep { $_->{needs} eq 'registry' } map { $_->hazards($f, \%c) } @FAMILIES if $f->{doc};
            next;
        }
        if (!$f->{doc}) {
            push @h, hazard(read => $f->{path}, 1, fork => "cannot be parsed: " . ($f->{error} // 'PPI failed'));
            next;
        }
        push @h, map { $_->hazards($f, \%c) } @FAMILIES;
    }
    push @h, Kamado::Check::Compiled->hazards($probe, $path, \%c);
    for my $d ($source->dynamic) {
        push @h, hazard(B4 => $d->[0], $d->[1], fork => "pulls in a file named at run time ($d->[2]): the check cannot read it");
    }
    for my $m ($source->{missing}->@*) {
        push @h, hazard(C3 => $m->[0], $m->[1], registry => "`$m->[2]` is not found from the script's directory: it fails as under CGI");
    }
    # (one hazard per place: the probe and the source can both see it)
    my %seen;
    @h = grep { !$seen{"$_->{id} $_->{file} $_->{line} $_->{message}"}++ } @h;
    @h = sort { $a->{file} ne $b->{file} ? ($a->{file} eq $path ? -1 : $b->{file} eq $path ? 1 : $a->{file} cmp $b->{file})
        : $a->{line} <=> $b->{line} } @h;
    $r{files} = $source->file_keys;
    # (the packages of the modules of its tree, for auto mode's run-time net)
    $r{packages} = [sort keys %{ { map { ($_->namespace => 1) } grep { $_->namespace ne 'main' }
        map { @{ $_->{doc}->find('PPI::Statement::Package') || [] } } grep { !$_->{is_script} && $_->{doc} } $source->files } }];
    $r{hazards} = \@h;
    if (defined $probe->{error}) {
        (my $error = $probe->{error}) =~ s/\s+\z//;
        return { %r, mode => 'fork', error => $error, reason => 'does not compile: ' . (split /\n/, $error)[0] };
    }
    my ($worst) = sort { rank($b->{needs}) <=> rank($a->{needs}) } @h;
    return { %r, mode => 'registry', reason => @h ? 'every hazard found is neutralised in-process' : 'no hazard found' }
        if !$worst || $worst->{needs} eq 'registry';
    (my $where = $worst->{file}) =~ s{\A\Q${\ ($path =~ m{\A(.*/)})[0]}\E}{};
    return { %r, mode => $worst->{needs}, reason => "$worst->{id} at $where line $worst->{line}: $worst->{message}" };
}

# scripts(PATH...) -> (the scripts under PATHs: a file is one; in a
# directory, the files named *.cgi or *.pl and the executables with a #!
# line, dotfiles and dot-directories skipped), (errors: PATHs that cannot be read).
sub scripts {
    my ($class, @paths) = @_;
    my (@scripts, @errors);
    for my $path (@paths) {
        if (-f $path) { push @scripts, Cwd::realpath($path); next }
        if (!-d $path) { push @errors, "$path: " . (-e $path ? 'not a file or directory' : 'no such file or directory'); next }
        require File::Find;
        File::Find::find({ no_chdir => 1, preprocess => sub { sort grep { !/\A\./ } @_ }, wanted => sub {
            return unless -f $_;
            return unless /\.(?:cgi|pl)\z/i || (-x _ && do { open my $fh, '<', $_; (<$fh> // '') =~ /\A#!/ });
            push @scripts, Cwd::realpath($_);
        } }, $path);
    }
    return (\@scripts, \@errors);
}

1;
__END__

=head1 NAME

Kamado::Check - the fastest CGI mode that runs a script like plain CGI (kamado check)

=head1 SYNOPSIS

    my $r = Kamado::Check->script('/srv/cgi-bin/board.cgi');
    print "$r->{mode}: $r->{reason}\n";
    print "  $_->{id} $_->{file}:$_->{line} $_->{message}\n" for $r->{hazards}->@*;

=head1 DESCRIPTION

The verdict is one of C<registry>, C<perlrun>, C<fork>, C<exec>: the
fastest mode in which every hazard found (doc/CGI-HAZARDS.md) is
neutralised. The hazard families: L<Kamado::Check::Flow> (A),
L<Kamado::Check::Scope> (B), L<Kamado::Check::Paths> (C),
L<Kamado::Check::IO> (D, CGI.pm), L<Kamado::Check::Process> (E), and
L<Kamado::Check::Compiled> (what compiling shows, L<Kamado::Check::Probe>).
A script that does not compile gets C<fork>; one run by another
interpreter, C<exec>.

=cut
