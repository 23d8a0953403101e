package Kamado::CGI::InProcess::Require;

# Compiles SOURCE (the caller's package and #line are in it) with none of
# this module's pragmas in scope: it comes before them on purpose, so
# that no strict, warnings or feature bundle leaks into a script, and it
# has no lexicals a script could see (doc/CGI-HAZARDS.md B10).
sub compile_source { eval shift }

# The source of a file's CODE as the body of the named sub SUB in PACKAGE,
# then a reference to it: what compile_source compiles. Perl's messages
# name the file's own lines, those of an error at the end of the code
# (a missing brace) too.
sub as_sub {
    my ($package, $sub, $file, $code) = @_;
    my $lines = ($code =~ tr/\n//) + ($code =~ /[^\n]\z/ ? 1 : 0) || 1;
    return "package $package; sub $sub {\n#line 1 \"$file\"\n$code\n#line $lines \"$file\"\n;}\\&$sub";
}

# perl's own require or do of NAME for code in PACKAGE at FILE, LINE: a
# file without a package line is compiled into the package of the code
# that asked, as it would be without the override (not into this one),
# and require's error names that code's line.
my %perls;
sub perls {
    my ($op, $name, $package, $file, $line) = @_;
    my $code = $perls{"$op $package"} //= eval "package $package; sub { CORE::$op(\$_[0]) }" or die $@;
    return $code->($name) if $op eq 'do';    # (do does not die: $@ and $! are its answer)
    my $result = eval { $code->($name) };
    return $result unless $@;
    my $error = $@;
    $error =~ s/ at \(eval \d+\) line 1\.\n\z/ at $file line $line.\n/ unless ref $error;
    die $error;
}

use 5.024;
use strict;
use warnings;

use B ();
use Errno ();
use Kamado::CGI::Source;

# require and do of files (not modules) for scripts run in-process (the
# registry and perlrun modes): doc/CGI-HAZARDS.md B4, B5, C3. Under plain CGI
# each script is its own process, so a library without a package line,
# such as cgi-lib.pl, is compiled into that script's main, and its top
# level runs on every request. Here:
#
# - such a file is compiled into the package of the code that asks for it
#   (as perl does: the script's own package), once per package, as the
#   body of a sub: twenty scripts that `require './lib.pl'` each get their
#   own copy, and two applications' ./lib.pl never meet;
# - its top level runs again on the first require of each request (and
#   on every do), as under CGI, without compiling it again;
# - a name with a directory (./lib.pl, ../x.pl, /abs.pl) is taken from
#   the current directory, which is the script's; a bare name only from
#   @INC, as perl since 5.26 does under CGI (no '.' in @INC).
#
# - a .pm name whose file has no package line (found through @INC, such
#   as AWStats' lib/*.pm data files, which fill the script's globals) is
#   such a library too (CGI-HAZARDS B12): were it perl's, %INC would keep
#   it loaded while the script's globals are reset for the next run.
#
# Modules (Foo/Bar.pm) and versions go to perl's own require. The
# overrides (CORE::GLOBAL::require and ::do) apply to code compiled after
# they are installed: install() runs before any script compiles.

our $SCRIPT;      # the script compiling or running: { libs => { path => stat key }, packages => { name => 1 } }
our %REQUIRED;    # "package\0path" -> 1: required in this request (the runner localises it)
our @INC_ADDED;   # names set in %INC in this request (the runner deletes them after)
my %compiled;     # "package\0path" -> { code, subs, key }
my %paths;        # path -> times compiled (into different packages)

sub install {
    state $done;
    return if $done++;
    no warnings 'once';
    *CORE::GLOBAL::require = \&_require;
    *CORE::GLOBAL::do = \&_do;
}

# Forgets what was compiled into PACKAGE (its package is being deleted).
sub forget {
    my ($class, $package) = @_;
    for my $key (grep { /\A\Q$package\E\0/ } keys %compiled) {
        my $path = (split /\0/, $key)[1];
        delete $paths{$path} unless --$paths{$path};
        delete $compiled{$key};
    }
}

# The worker's own library (the @INC it started with): what a module of
# it requires (bytes.pm's bytes_heavy.pl) is that module's business, as
# it would be in any perl, never a library of the script's.
my @WORKER_INC = grep { !ref && m{\A/} } @INC;

sub _library {
    my ($name, $from) = @_;
    return 0 if !defined $name || ref $name || !$SCRIPT;
    return 0 if defined $from && grep { index($from, "$_/") == 0 } @WORKER_INC;
    return 0 if $name =~ /\Av?\d[\d._]*\z/;    # require VERSION
    return 1 if $name =~ m{\A\.{0,2}/};
    return 1 if $name !~ /\.pm\z/;
    # a .pm name is a module, unless its file has no package line: then
    # it is data for whoever requires it (AWStats' lib/*.pm fill the
    # script's globals), a library like cgi-lib.pl whatever its name
    return 0 if $INC{$name};
    my $path = _resolve($name) // return 0;
    return !_has_package($path);
}

# Whether the file at PATH has a package line (known per version of it).
my %has_package;    # path -> [stat key, 0 or 1]
sub _has_package {
    my ($path) = @_;
    my $key = Kamado::CGI::Source::file_key($path);
    my $known = $has_package{$path};
    return $known->[1] if $known && $known->[0] eq $key;
    open my $fh, '<:raw', $path or return 1;
    my ($code) = Kamado::CGI::Source::split_marker(do { local $/; <$fh> } // '');
    my $has = $code =~ /^\s*package\s+[\w:]+/m ? 1 : 0;
    $has_package{$path} = [$key, $has];
    return $has;
}

sub _resolve {
    my ($name) = @_;
    return -f $name ? $name : undef if $name =~ m{\A\.{0,2}/};
    for my $dir (@INC) {
        next if ref $dir;
        return "$dir/$name" if -f "$dir/$name";
    }
    return undef;
}

sub _require {
    return perls('require', $_[0], caller) unless _library($_[0], (caller)[1]);
    my ($name) = @_;
    my ($package, $file, $line) = caller;
    my $path = _resolve($name) // die "Can't locate $name in \@INC (\@INC contains: @INC) at $file line $line.\n";
    my $key = "$package\0$path";
    return 1 if $REQUIRED{$key};
    $INC{$name} = $path;
    push @INC_ADDED, $name;
    my @result = _run(_compiled($package, $path));
    if (!@result) {
        delete $INC{$name};
        die $@;
    }
    die "$name did not return a true value at $file line $line.\n" unless $result[-1];
    $REQUIRED{$key} = 1;
    return $result[-1];
}

sub _do {
    return perls('do', $_[0], caller) unless _library($_[0], (caller)[1]);
    my ($name) = @_;
    my $path = _resolve($name);
    if (!defined $path) {
        $! = Errno::ENOENT();
        return undef;
    }
    $INC{$name} = $path;
    push @INC_ADDED, $name;
    my @result = _run(_compiled(scalar caller, $path));
    return @result ? $result[-1] : undef;
}

# Runs a compiled library's top level: () if it died ($@ says why).
sub _run {
    my ($lib) = @_;
    return () unless $lib;
    share_lexicals($lib->{code}, $lib->{subs}->@*);
    Kamado::CGI::InProcess::Snapshot::save_more($lib->{foreign}, $SCRIPT->{packages})
        if $lib->{foreign}->@* && defined $Kamado::CGI::InProcess::Snapshot::FOREIGN;
    my @result = eval { scalar $lib->{code}->() };
    return $@ ? () : @result;
}

# The library at PATH compiled into PACKAGE as a sub, or undef ($@).
sub _compiled {
    my ($package, $path) = @_;
    my $key = Kamado::CGI::Source::file_key($path);
    $SCRIPT->{libs}{$path} = $key;
    my $lib = $compiled{"$package\0$path"};
    return $lib if $lib && $lib->{key} eq $key;
    open my $fh, '<:raw', $path or do { $@ = "Can't read $path: $!\n"; return undef };
    my ($code) = Kamado::CGI::Source::split_marker(do { local $/; <$fh> } // '');
    my @packages = ($package, $code =~ /^\s*package\s+([\w:]+)\s*;/mg);
    $SCRIPT->{packages}{$_} = 1 for @packages;
    (my $sub = $path) =~ s/([^A-Za-z0-9_])/sprintf '_%02x', ord $1/ge;
    $sub = "__kamado_cgi_lib$sub";
    # a library with its own package, compiled for a second script,
    # defines the same subs again: that is expected, not worth a warning
    local $SIG{__WARN__} = sub { warn @_ unless $_[0] =~ /^Subroutine \S+ redefined at \Q$path\E / }
        if $paths{$path} && !$lib;
    my $cv = compile_source(as_sub($package, $sub, $path, $code));
    return undef if $@ || ref $cv ne 'CODE';
    $paths{$path}++ unless $lib;
    $compiled{"$package\0$path"} = {
        code => $cv, key => $key, subs => [named_subs($cv, @packages)],
        foreign => Kamado::CGI::Source::qualified_names($code)
    };
    return $compiled{"$package\0$path"};
}

# The named subs in PACKAGES declared directly inside the sub WRAPPER
# (their lexicals are the wrapper's: see share_lexicals).
sub named_subs {
    my ($wrapper, @packages) = @_;
    my $outer = ${ B::svref_2object($wrapper) };
    my @subs;
    no strict 'refs';
    for my $package (@packages) {
        my $stash = \%{"${package}::"};
        for my $name (keys %$stash) {
            next if $name =~ /::\z/;
            my $entry = $stash->{$name};
            # (perl keeps some subs in the stash as a bare code reference)
            my $cv = ref \$entry eq 'GLOB' ? *{$entry}{CODE} : ref $entry eq 'CODE' ? $entry : undef;
            next unless $cv;
            my $b = B::svref_2object($cv);
            push @subs, $cv if !$b->XSUB && ${ $b->OUTSIDE } == $outer;
        }
    }
    return @subs;
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::Require - per-script require and do of library files

=head1 DESCRIPTION

While a script runs in the worker, C<require> and C<do> of a library
file compile it into the script's package, once, and run its top level
again at each require of each run, as a new process would. Also here,
for the script's own wrapper and for each library's:
C<share_lexicals(WRAPPER, SUBS)> (XS, F<xs/CGIInProcessRequire.xsh>) points the named
subs SUBS at the file-scoped lexicals of WRAPPER's next call (the
closure problem of doc/CGI-HAZARDS.md B1), and C<named_subs>,
C<as_sub> and C<compile_source>, which the compile
(L<Kamado::CGI::InProcess::Compile>) and the checker's probe use.

=cut
