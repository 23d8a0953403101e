package Kamado::CGI::InProcess::Compile;
use 5.024;
use strict;
use warnings;

use B ();
use Kamado::CGI::InProcess::Overrides;
use Kamado::CGI::InProcess::Require;
use Kamado::CGI::InProcess::Snapshot;
use Kamado::CGI::Source;
use Kamado::CGI::InProcess::World;

# How the in-process modes (Kamado::CGI::InProcess::Run) compile a script: into
# a package of its own, as the body of a named sub, with what compiling
# did to the worker (END blocks, %SIG handlers, CGI.pm's and CGI::Carp's
# settings, CORE::GLOBAL overrides a module made) taken back and kept
# with the script for each of its runs. compile(S) fills the compiled
# script S: { code, package, packages, subs, end, sig, snapshot, ... }.

my %main_names;  # script path -> { name => 1 }: what it calls main::name
my %main_count;  # script path -> how many names main:: had when they were looked for
my %stashes;     # script path -> { name => 1 }: main::'s names before it first compiled
my %inc_before;  # %INC's names before a script compiles (compile)
my %package_of;  # script path -> the package it is compiled into
# CGI::Carp's settings as a process that just loaded it has them
our %CARP = (WRAP => 0, WARN => 0, CUSTOM_MSG => undef, DIE_HANDLER => undef, TO_BROWSER => 1,
             NO_TIMESTAMP => 0, FULL_PATH => 0, PROGNAME => undef);
my @WORKER_INC = grep { !ref } @INC;

# Compiles the script into its package as the body of a named sub. What
# compiling does to the worker is taken back and kept for each run: END
# blocks, %SIG handlers (CGI::Carp's __DIE__), CGI.pm's pragmas and
# settings, the package variables as compiled.
sub compile {
    my ($s) = @_;
    my $src = $s->{source};
    # (the file's name made a package name once: perlrun compiles per request)
    $s->{package} = $package_of{ $s->{file} } //= do {
        (my $package = $s->{file}) =~ s/([^A-Za-z0-9_])/sprintf '_%02x', ord $1/ge;
        "Kamado::CGI::ROOT::$package";
    };
    my $signals = Kamado::CGI::InProcess::World::signal_state();
    my $end = end_blocks()->@*;
    local @CGI::SAVED_SYMBOLS = ();
    # (CGI.pm's settings as a new process has them, so that what the
    # script sets while compiling shows; a run's changes do not)
    no warnings 'once';
    local ($CGI::POST_MAX, $CGI::DISABLE_UPLOADS) = (-1, 0) if defined &CGI::initialize_globals;
    # (CGI::Carp's settings too: fatalsToBrowser is one script's choice)
    no strict 'refs';
    my %carp = map { $_ => ${"CGI::Carp::$_"} } defined &CGI::Carp::die ? keys %CARP : ();
    ${"CGI::Carp::$_"} = $CARP{$_} for keys %carp;
    local %Kamado::CGI::InProcess::Require::REQUIRED = ();
    # (%INC's names before, kept from compile to compile and made again
    # only when their count changed: a copy of %INC per compile was a
    # tenth of a perlrun request)
    %inc_before = map { $_ => 1 } keys %INC if keys %INC != keys %inc_before;
    my $modules = keys %INC;
    # (the worker's own names, taken once per script: perlrun compiles it
    # again in a main that has not changed)
    $s->{stashes} = $stashes{ $s->{file} } //= { map { $_ => 1 } keys %main:: };
    # built-ins a module overrides while the script compiles (CGI::Carp's
    # die) are for the code compiled with it, not for other scripts'
    my %overrides = map { $_ => *{"CORE::GLOBAL::$_"}{CODE} } keys %CORE::GLOBAL::;
    my $format = *main::STDOUT{FORMAT};
    # a script's `package main;` means its own main, as a script without
    # one has: other scripts' main is not its
    # (made once per version of the file: perlrun compiles it per request)
    my $wrapped = $src->{wrapped} //= do {
        (my $source = $src->{code}) =~ s/^(\s*package\s+)main(\s*;)/$1$s->{package}$2/mg;
        Kamado::CGI::InProcess::Require::as_sub($s->{package}, '__kamado_cgi_script', $s->{file}, $source);
    };
    my @warnings;
    undef $Kamado::CGI::InProcess::Overrides::EXIT_CODE;
    # (a __WARN__ handler the script sets while it compiles, in a BEGIN
    # block or through CGI::Carp, is its own: kept for its runs, as
    # __DIE__ is, not dropped with the collector)
    my $collect = sub { push @warnings, $_[0] };
    my $warn;
    my $code = do {
        local $SIG{__WARN__} = $collect;
        my $code = Kamado::CGI::InProcess::Require::compile_source($wrapped);
        $warn = $SIG{__WARN__} if !ref $SIG{__WARN__} || $SIG{__WARN__} != $collect;
        $code;
    };
    my $endav = end_blocks();
    my $new = @$endav - $end;
    # (perl puts END blocks first: the newest is run first) The script's
    # END blocks, and those of modules of its own (under its directory, or
    # found by a relative path), run at the end of each run; a module from
    # the worker's library (DBI's, which disconnects every handle) keeps
    # its END block for the end of the worker, as it would have loaded
    # it before any script
    my %module = map { $INC{$_} => 1 }
        grep { /\.pm\z/ && defined $INC{$_} && !ref $INC{$_} && $INC{$_} =~ m{\A/} && index($INC{$_}, "$s->{dir}/") != 0 }
        grep { !$inc_before{$_} } keys %INC;
    my @own = grep { !$module{ B::svref_2object(\$endav->[$_])->FILE } } 0 .. $new - 1;
    $s->{end} = [map { \$endav->[$_] } @own];
    splice @$endav, $_, 1 for reverse @own;
    my %changed = Kamado::CGI::InProcess::World::changed_signals($signals);
    $s->{sig} = { map { $_ => $SIG{$_} } keys %changed };
    $s->{sig}{__WARN__} = $warn if defined $warn;
    $SIG{$_} = $changed{$_} for keys %changed;
    $s->{cgi_symbols} = [@CGI::SAVED_SYMBOLS];
    $s->{cgi_settings} = defined &CGI::initialize_globals ? [$CGI::POST_MAX, $CGI::DISABLE_UPLOADS] : [-1, 0];
    $s->{carp} = { map { $_ => ${"CGI::Carp::$_"} } keys %CARP } if defined &CGI::Carp::die;
    ${"CGI::Carp::$_"} = $carp{$_} for keys %carp;
    for my $name (keys %CORE::GLOBAL::) {
        next if (*{"CORE::GLOBAL::$name"}{CODE} // 0) == ($overrides{$name} // 0);
        if ($overrides{$name}) { no warnings 'redefine'; *{"CORE::GLOBAL::$name"} = $overrides{$name} }
        else { delete $CORE::GLOBAL::{$name} }
    }
    $s->{required} = {%Kamado::CGI::InProcess::Require::REQUIRED};
    # modules of its own (use lib 'lib'): reloaded when they change
    for my $name (keys %INC == $modules ? () : grep { !$inc_before{$_} && defined $INC{$_} && /\.pm\z/ } keys %INC) {
        my $path = $INC{$name};
        next if grep { index($path, "$_/") == 0 } @WORKER_INC;
        $s->{libs}{$path} = Kamado::CGI::Source::file_key($path);
    }
    # `format STDOUT` is main's whatever the package (STDOUT always is):
    # kept as the script's own, selected for each of its runs
    no strict 'refs';
    *{"$s->{package}::STDOUT"} = *main::STDOUT{FORMAT}
        if defined *main::STDOUT{FORMAT} && (!$format || *main::STDOUT{FORMAT} != $format);
    if ($@ || ref $code ne 'CODE') {
        # an exit while compiling (in a BEGIN block): under CGI, the end
        # of the process, every time it runs; here, the end of this run,
        # and the script is compiled again the next time
        if (ref $@ && ref $@ eq ref $Kamado::CGI::InProcess::Overrides::EXIT
            || defined $Kamado::CGI::InProcess::Overrides::EXIT_CODE)
        {
            print STDERR @warnings;
            $s->{exited_compiling} = 1;
            return;
        }
        print STDERR @warnings, $@;
        return;
    }
    my @packages = ($s->{package}, ($src->{packages} //= [$src->{code} =~ /^\s*package\s+([\w:]+)\s*;/mg])->@*);
    $s->{packages}{$_} = 1 for @packages;
    $s->{subs} = [Kamado::CGI::InProcess::Require::named_subs($code, @packages)];
    # -w's "will not stay shared" for a file-scoped variable is the
    # wrapper's doing, and share_lexicals undoes it: not the script's
    # warning (one between subs of its own stays)
    my %shared = map { $_ => 1 } captured($s->{subs});
    print STDERR grep { !(/\AVariable "(.+?)" will not stay shared at \Q$s->{file}\E line \d+\.\n\z/ && $shared{$1}) }
        @warnings;
    # (those that went through a __WARN__ handler the script set while
    # compiling, CGI::Carp's, reached its STDERR stamped: the runner
    # leaves them out of what it logs, wrapper's)
    $s->{shared} = \%shared if defined $warn;
    $s->{snapshot} = Kamado::CGI::InProcess::Snapshot->take(own_packages($s));
    $s->{known_packages} = keys $s->{packages}->%*;
    # the names the script spells main::x (or ::x): under CGI its own
    no strict 'refs';
    # (perl made them while compiling it; a compile again finds them made:
    # the names are kept per script)
    my $names = $main_names{ $s->{file} } //= {};
    # (looked for again only when main:: has more or fewer names than
    # the last time: perlrun compiles the script for every request, and
    # the names it makes are there from its first compile on)
    if (($main_count{ $s->{file} } // -1) != keys %main::) {
        $names->{$_} = 1 for grep { /\A[A-Za-z_]\w*\z/ && !$s->{stashes}{$_} } keys %main::;
        $main_count{ $s->{file} } = keys %main::;
    }
    $s->{main_names} = [keys %$names];
    my $own = $s->{package};
    $s->{autoload} = sub {
        # (perl sets $AUTOLOAD in the package the sub was compiled in: this one)
        (my $name = our $AUTOLOAD) =~ s/.*:://;
        return if $name eq 'DESTROY';
        goto &{"${own}::$name"} if defined &{"${own}::$name"};
        my (undef, $file, $line) = caller;
        die "Undefined subroutine &main::$name called at $file line $line.\n";
    };
    # (its formats' names and globs, for each run's new page: new_page)
    $s->{page} = [map { ("$own\::$_", \*{"$own\::$_"}) } qw(STDOUT STDOUT_TOP)];
    $s->{code} = $code;
}

# The names of the wrapper's variables that its named subs SUBS use.
sub captured {
    my ($subs) = @_;
    my @names;
    for my $cv (@$subs) {
        my ($names) = B::svref_2object($cv)->PADLIST->ARRAY;
        push @names, map { $_->PV } grep {
            ${$_} && defined $_->PV && ($_->FLAGS & B::PADNAMEt_OUTER()) && !($_->FLAGS & B::PADNAMEt_OUR())
        } $names->ARRAY;
    }
    return @names;
}

# The packages the script made (its own, and those its files declare):
# not main, nor ones that were there before it compiled (CGI, a module).
sub own_packages {
    my ($s) = @_;
    return grep { $_ eq $s->{package} || ($_ ne 'main' && !$s->{stashes}{ (/\A(\w+)/)[0] . '::' }) }
        keys $s->{packages}->%*;
}

# perl's list of END blocks (made when the first one is compiled)
sub end_blocks {
    my $av = B::end_av();
    return $av->isa('B::AV') ? $av->object_2svref : [];
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::Compile - a CGI script compiled into the worker (modes registry and perlrun)

=head1 SYNOPSIS

    Kamado::CGI::InProcess::Compile::compile($s);    # $s->{code} set, or the errors on STDERR
    my @packages = Kamado::CGI::InProcess::Compile::own_packages($s);

=cut
