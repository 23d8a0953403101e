package Kamado::CGI::InProcess::Scripts;
use 5.024;
use strict;
use warnings;

use Symbol ();
use Kamado::CGI::InProcess::Compile;
use Kamado::CGI::InProcess::Persistent;
use Kamado::CGI::InProcess::Require;
use Kamado::CGI::LRU;
use Kamado::CGI::Source;
use Kamado::Log;

# The scripts a worker holds for the in-process modes: registry keeps
# each compiled script, up to $MAX_COMPILED, until it or a library it
# loaded changes; perlrun's lasts one request. Kamado::CGI::InProcess::Run
# runs them.

# compiled scripts a worker keeps; past it, the least recently used goes
# (with its packages: a site of a thousand scripts is not a thousand
# compiled scripts in every worker)
our $MAX_COMPILED = 200;
my %source;    # script path -> its Kamado::CGI::Source, with the stat key
# script path -> compiled script (registry)
my $compiled = Kamado::CGI::LRU->new(max => $MAX_COMPILED, evict => \&_evict);

# full(MODE, ARGS): whether MODE keeps its scripts and keeps as many as
# it may, the script of ARGS not among them.
sub full {
    my ($mode, $args) = @_;
    return $mode->keeps_compiled && !$compiled->peek($args->{script}{filename}) && $compiled->count >= $MAX_COMPILED;
}

# get(MODE, ARGS): the script's compiled state (made, or made again when
# it or a library changed), or undef when it cannot be read (logged).
# Kept when its mode MODE (Kamado::CGI::Mode::Registry or ::PerlRun)
# keeps compiled scripts. The script kept is now the most recently used.
sub get {
    my ($mode, $args) = @_;
    my $script = $args->{script};
    my $file = $script->{filename};
    my $s = $compiled->get($file);
    # (the script and every library it loaded as they were compiled)
    if ($s && ($s->{key} ne $script->{key} || ($s->{libs}->%* && !Kamado::CGI::Source::unchanged($s->{libs})))) {
        discard($s);
        $s = undef;
    }
    if (!$s) {
        # (read once per version of the file: perlrun compiles it per request)
        my $key = $script->{key};
        my $src = $source{$file};
        if (!$src || $src->{key} ne $key) {
            $src = eval { +{ Kamado::CGI::Source->read($file)->%*, key => $key } } or do {
                Kamado::Log->error("$file: $@");
                return undef;
            };
            $source{$file} = $src;
        }
        # (a script that needs a process of its own, for a #! switch such
        # as -T or another interpreter, is not here: Kamado::CGI::Mode)
        my %switch = map { $_ => 1 } map { split //, substr $_, 1 } $src->{switches}->@*;
        $s = {
            file => $file, dir => $script->{dir}, key => $key, libs => {}, packages => {},
            source => $src, mode => $mode, kept => $mode->keeps_compiled ? 1 : 0, warnings => $switch{w} ? 1 : 0,
            line_ends => $switch{l} ? "\n" : undef
        };
        # (the PersistentPerl runner of its runs, picked once)
        $s->{runner} = Kamado::CGI::InProcess::Persistent->runner($s->{kept});
        # (the least recently used goes, if need be, before this one compiles)
        $compiled->max($MAX_COMPILED)->set($file, $s) if $s->{kept};
    }
    return $s;
}

# (a script let go for another: its source goes too)
sub _evict {
    my ($file, $s) = @_;
    delete $source{$file};
    discard($s);
}

sub discard {
    my ($s) = @_;
    $compiled->remove($s->{file});
    return unless $s->{package};
    for my $package ($s->{package}, keys $s->{packages}->%*) {
        Kamado::CGI::InProcess::Require->forget($package);
    }
    # its private modules load again with it
    delete @INC{ grep { defined $INC{$_} && $s->{libs}{ $INC{$_} } } keys %INC } if $s->{libs}->%*;
    # (the packages it made: compiled again, its subs are new, not redefined)
    Symbol::delete_package($_) for $s->{stashes} ? Kamado::CGI::InProcess::Compile::own_packages($s) : $s->{package};
    delete $s->{code};
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::Scripts - the compiled CGI scripts a worker holds (modes registry and perlrun)

=head1 SYNOPSIS

    my $s = Kamado::CGI::InProcess::Scripts::get($mode, $args) // return error_response(500);
    ...
    Kamado::CGI::InProcess::Scripts::discard($s) unless $s->{kept};

=head1 DESCRIPTION

C<get(MODE, ARGS)> gives the state of the script ARGS names (ARGS as for
L<Kamado::CGI::InProcess::Run>): the one kept, or a new one when none is
kept or the script or a library it loaded changed since it compiled
(inode, size, mtime). It is kept when MODE's C<keeps_compiled> says so
(L<Kamado::CGI::Mode::Registry>, not L<Kamado::CGI::Mode::PerlRun>); past
C<$Kamado::CGI::InProcess::Scripts::MAX_COMPILED> scripts (200), the
least recently used is discarded (L<Kamado::CGI::LRU>). C<discard(S)> forgets a script with
the packages it made and the private modules it loaded, which load
again with it. The source is read once per version of the file.

=cut
