package Kamado::Hooks;
use 5.024;
use strict;
use warnings;

use File::Spec ();

# The user's code Kamado runs around the app: --startup FILE, a
# mod_perl-style startup.pl run once in each generation before the app
# loads, and --worker-init CODE_OR_MODULE, run in each worker once it is
# forked, before it accepts. Errors are one line naming the option.

# startup(FILE): runs FILE in this process, in package main, as
# mod_perl's PerlPostConfigRequire does; dies "kamado: --startup FILE:
# ..." when it cannot be read or dies. Its value is not looked at.
sub startup {
    my ($class, $file) = @_;
    # (absolute: `do` looks a relative name up in @INC, not here)
    my $path = File::Spec->rel2abs($file);
    open my $fh, '<', $path or die "kamado: --startup $file: can't read it: $!\n";
    close $fh;
    _do_file($path);
    die "kamado: --startup $file: " . ($@ =~ s/\s+\z//r) . "\n" if $@;
    return 1;
}

# worker_init(SPEC) -> the sub each worker calls. SPEC is a package name
# (words joined by ::, nothing else): the module is loaded here and its
# worker_init method is what each worker calls; anything else is Perl
# code, compiled here (in package main) and run in each worker. Dies with
# one line naming --worker-init when the module cannot be loaded, has no
# worker_init, or the code does not compile.
sub worker_init {
    my ($class, $spec) = @_;
    if ($spec =~ /\A[A-Za-z_]\w*(?:::\w+)*\z/) {
        (my $pm = "$spec.pm") =~ s{::}{/}g;
        eval { require $pm; 1 }
            or die "kamado: --worker-init $spec: can't load $spec: " . ($@ =~ s/\s+\z//r) . "\n";
        $spec->can('worker_init') or die "kamado: --worker-init $spec: $spec has no worker_init method\n";
        return sub { $spec->worker_init };
    }
    my $code = _compile($spec);
    die "kamado: --worker-init: the code does not compile: " . ($@ =~ s/\s+\z//r) . "\n" unless ref $code eq 'CODE';
    return $code;
}

package main;    ## no critic: the user's code is main's, as in a script

# (here, away from any lexical of Kamado::Hooks the code could see)
sub Kamado::Hooks::_do_file { local $!; do $_[0] }

sub Kamado::Hooks::_compile { eval "#line 1 \"--worker-init\"\nsub {\n$_[0]\n}" }

1;
__END__

=head1 NAME

Kamado::Hooks - the user's code run around the app: --startup and --worker-init

=head1 SYNOPSIS

    Kamado::Hooks->startup('startup.pl');                   # in the generation
    my $init = Kamado::Hooks->worker_init('My::Init');      # in the generation
    $init->();                                              # in each worker

=head1 DESCRIPTION

C<startup(FILE)> runs a startup file as mod_perl's C<PerlPostConfigRequire>
does: once, in package C<main>, in the process that then loads the app
and forks the workers (the generation, L<Kamado::Supervisor>), so what it
loads and sets is shared by the workers copy-on-write; each new
generation (HUP) runs it again. A file that cannot be read or dies stops
the generation, with C<kamado: --startup FILE: ...>.

C<worker_init(SPEC)> makes the per-worker hook of C<--worker-init>: for a
package name (C<My::Init>, C<Init>: word characters joined by C<::>,
nothing else) the module is loaded in the generation and
C<< My::Init->worker_init >> is called in each worker; anything else is
Perl code, compiled once in the generation as the body of a sub in
package C<main> (its errors say C<at --worker-init line N>) and called in
each worker. Either is called with no arguments.

=cut
