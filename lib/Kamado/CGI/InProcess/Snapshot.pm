package Kamado::CGI::InProcess::Snapshot;
use 5.024;
use strict;
use warnings;

use Kamado ();    # (the XS: _restore)

# The package variables of a script compiled in-process, as they were
# when it had just compiled (doc/CGI-HAZARDS.md B2, idea 4.7): under CGI every
# request starts from that state, since every request is a new process.
# restore() puts them back after each run: the values BEGIN blocks and
# `use` gave them, and empty for variables that appeared later (a
# library's, or ones made at run time). File handles the run opened are
# closed (those open when it compiled stay). Subs and formats are not
# touched. Plain data (unblessed arrays and hashes) is copied
# deeply, so a run cannot change the snapshot through a reference;
# objects, code and handles are kept as they are. One value a run leaves
# is kept (kd_snapshot_kept): a database handle (DBI::db) or a
# PersistentPerl object in a scalar, for scripts written for a persistent
# perl (our $dbh, connected once; Kamado::CGI, registry).

use constant MAX_DEPTH => 20;

sub take {
    my ($class, @packages) = @_;
    my $self = bless { packages => {} }, $class;
    $self->_scan($_, 1) for @packages;
    return $self;
}

sub add_package {
    my ($self, $package) = @_;
    $self->_scan($package, 0) unless $self->{packages}{$package};
}

# Puts every variable back: after each run (what the run left in them
# goes then, as at a process's exit).
# For each package: a name more than last time is a variable the last run
# made (_scan again; the stash as _scan found it: looking it up by its
# name, a long one, costs more than the rest of the restore); the values
# put back in XS (_restore, kd_snapshot_restore_all, as this runs after
# every run); the files the run opened come back to be closed, as at a
# process's exit: a lock one holds is released.
sub restore {
    close *$_ for _restore($_[0]);
}

# Records PACKAGE's variables: their values if INITIAL (just compiled),
# else only the names not seen before, as empty.
sub _scan {
    my ($self, $package, $initial) = @_;
    no strict 'refs';
    my $stash = \%{"${package}::"};
    my $p = $self->{packages}{$package} //= { vars => [], seen => {}, stash => $stash };
    for my $name (keys %$stash) {
        next if $p->{seen}{$name} || $name =~ /::\z/ || $name eq 'ISA';
        # (a sub perl keeps as a bare code reference has no variables yet)
        next unless ref \$stash->{$name} eq 'GLOB';
        $p->{seen}{$name} = 1;
        my $glob = \*{"${package}::$name"};
        my @values = $initial
            ? (
            _copy(${ *$glob{SCALAR} }), (map { $_ ? _copy($_) : undef } *$glob{ARRAY}, *$glob{HASH}),
            *$glob{IO} && defined fileno *$glob
            )
            : (undef, undef, undef, 0);
        push $p->{vars}->@*, [$glob, @values];
    }
    $p->{names} = keys %$stash;
}

# Another package's variables that a script sets (`$Data::Dumper::Indent
# = 1`, `push @Foo::ISA`, `*Foo::x = \&y`; doc/CGI-HAZARDS.md B13): under
# CGI the change ends with the script's process, in-process it would stay
# for every later script of the worker. The variables the script's code
# (and the libraries compiled into its package, Kamado::CGI::InProcess::Require)
# names with a package are saved before each run and put back after it:
# their values, and what a glob assignment put in their slots. A name made
# at run time (${"${p}::x"}) is not seen here (kamado check sends such a
# script to fork mode: Kamado::Check::Probe).

# The saved state of the running script (0 while it has none, undef
# outside a run): a library run during the run adds its names to it
# (save_more). The names: Kamado::CGI::Source::qualified_names.
our $FOREIGN;

# save(NAMES, OWN) -> the values of NAMES (but for those in the packages
# of OWN, the script's: Snapshot puts them back already), for put_back.
sub save {
    my ($names, $own) = @_;
    my $saved = { vars => [], slots => [], made => [], seen => {}, own => $own };
    _save($names, $saved);
    return $saved;
}

# save_more(NAMES, OWN): NAMES saved too, in the running script's saved
# state (made, with OWN, if it has none yet).
sub save_more {
    my ($names, $own) = @_;
    return unless defined $FOREIGN;
    _save($names, $FOREIGN ||= save([], $own));
}

my %glob;    # name -> its glob, once it exists (a glob, once made, stays)

sub _save {
    my ($names, $saved) = @_;
    no strict 'refs';
    for my $name (@$names) {
        next if $saved->{seen}{$name}++;
        my $glob = $glob{$name} // (_exists($name) ? ($glob{$name} = \*{$name}) : undef);
        if (!$glob) { push $saved->{made}->@*, $name; next }
        next if $saved->{own}{ *{$glob}{PACKAGE} };
        my @slots = (*$glob{SCALAR}, *$glob{ARRAY}, *$glob{HASH}, *$glob{CODE});
        push $saved->{slots}->@*, [$glob, @slots];
        # (a tied array or hash, %Config::Config, is not put back: not copied)
        my $scalar = ${ $slots[0] };
        my @copies = (ref $scalar ? _copy($scalar) : $scalar);
        push @copies, map { $_ && !_tied($_) ? _copy($_) : undef } @slots[1, 2];
        push $saved->{vars}->@*, [$glob, @copies, *$glob{IO} && defined fileno *$glob];
    }
}

# put_back(SAVED): the values as they were before the run; a variable the
# run made in another package is emptied.
sub put_back {
    my ($saved) = @_;
    no strict 'refs';
    no warnings 'redefine';
    for my $s ($saved->{slots}->@*) {
        my ($glob, $sv, $av, $hv, $cv) = @$s;
        *$glob = $sv if *$glob{SCALAR} != $sv;
        *$glob = $av if $av && (*$glob{ARRAY} // 0) != $av;
        *$glob = $hv if $hv && (*$glob{HASH} // 0) != $hv;
        *$glob = $cv if $cv && (*$glob{CODE} // 0) != $cv;
    }
    my @vars = $saved->{vars}->@*;
    push @vars, map { [\*{$_}, undef, undef, undef, 1] } grep { _exists($_) } $saved->{made}->@*;
    # (restore's XS, given the variables as one package's, its stash empty
    # and unchanged: no scan)
    close *$_ for _restore({ packages => { '' => { vars => \@vars, stash => {}, names => 0 } } });
}

sub _tied { ref $_[0] eq 'ARRAY' ? tied @{ $_[0] } : tied %{ $_[0] } }

# Whether the package variable NAME exists (looked up without making it).
sub _exists {
    my @parts = split /::/, $_[0];
    my $last = pop @parts;
    no strict 'refs';
    my $stash = \%main::;
    for my $part (@parts) {
        my $entry = $stash->{"${part}::"} // return 0;
        $stash = *{$entry}{HASH} // return 0;
    }
    return exists $stash->{$last} && ref \$stash->{$last} eq 'GLOB';
}

sub _copy {
    my ($v, $depth) = @_;
    my $type = ref $v or return $v;
    return $v if ($depth //= 0) > MAX_DEPTH;
    return [map { _copy($_, $depth + 1) } @$v] if $type eq 'ARRAY';
    return { map { $_ => _copy($v->{$_}, $depth + 1) } keys %$v } if $type eq 'HASH';
    return $v;
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::Snapshot - a script's package variables, put back before each run

=cut
