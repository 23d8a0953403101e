package Kamado::DBI::Predict;
use 5.024;
use strict;
use warnings;

use B ();

# Fork mode: the connections a compiled script will ask for, read from
# its op tree without running it, so that its zygote connects before its
# first child runs (Kamado::DBI::Lend::predict). Loaded only in a
# process forked from the zygote for this and gone right after: B stays
# out of the zygote, which every fork copies.
#
# A prediction is a `DBI->connect(...)` or `DBI->connect_cached(...)` in
# the script's own code (its file scope, its named and anonymous subs)
# whose arguments are literals (constants included), strings interpolated
# from such, or scalars written once, by an assignment of those at the
# file's top level (`my ($dsn, $user) = ('dbi:mysql:...', 'me')`,
# `our $pass = '...'`, DBI's own `$dsn = "DBI:mysql:database=$database;
# host=$hostname"`), and nowhere else in the file; the attributes, an
# anonymous hash of such. A wrong
# one (a variable another file sets, a string eval) costs a connection
# that the zygote closes once its first child has not used it.

my $MOD   = B::OPf_MOD();
my $KIDS  = B::OPf_KIDS();
my $INTRO = B::OPpLVAL_INTRO();
my $RV2SV = B::opnumber('rv2sv');
my $TARGET_MY = B::OPpTARGET_MY();
my $APPEND    = B::OPpMULTICONCAT_APPEND();
my $STACKED   = B::OPf_STACKED();

# connects(FILE) -> ([DSN, USER, PASS, {ATTR} or undef]...): the
# predictable connects of the running program, whose file is FILE.
sub connects {
    my ($file) = @_;
    my $main = B::main_cv();
    my @cvs = ([$main, B::main_root()]);
    my %seen = (${$main} => 1);
    for (my $i = 0; $i < @cvs; $i++) {
        # (anonymous subs: their prototypes, in the pad of the code around them)
        for my $sv (_pad_values($cvs[$i][0])) {
            next unless $sv->isa('B::CV') && !$seen{$$sv}++ && ${ $sv->ROOT } && $sv->FILE eq $file;
            push @cvs, [$sv, $sv->ROOT];
        }
    }
    push @cvs, map { [$_, $_->ROOT] } _named_subs($file, \%seen);
    my $self = { main => $$main, writes => {}, sites => [] };
    _walk($self, $_->[0], $_->[1], undef) for @cvs;
    my @found;
    my %dup;
    for my $site ($self->{sites}->@*) {
        my @args = map { _value($self, $_) } $site->{args}->@*;
        next if grep { !$_ } @args;
        my ($dsn, $user, $pass, $attr) = map { $_->[0] } @args;
        next unless defined $dsn && $dsn =~ /\Adbi:\w+:/i;
        next if @args > 4 || (defined $attr && ref $attr ne 'HASH');
        my $id = join "\0", map { $_ // "\1" } $dsn, $user, $pass,
            $attr ? map { ($_, $attr->{$_} // "\1") } sort keys %$attr : ();
        push @found, [$dsn, $user, $pass, $attr] unless $dup{$id}++;
    }
    return @found;
}

# The named subs of the script, in any package: those compiled from FILE.
sub _named_subs {
    my ($file, $seen) = @_;
    my @cvs;
    my @stashes = ('main::');
    my %stash_seen;
    no strict 'refs';
    while (defined(my $stash = shift @stashes)) {
        next if $stash_seen{$stash}++;
        for my $name (keys %$stash) {
            if ($name =~ /::\z/) {
                push @stashes, $stash eq 'main::' ? $name : "$stash$name" unless $name eq 'main::';
                next;
            }
            # (by name: a sub's entry may be the sub itself, not a glob)
            my $code = *{"$stash$name"}{CODE} or next;
            my $cv = B::svref_2object($code);
            next unless $cv->isa('B::CV') && !$seen->{$$cv}++ && ${ $cv->ROOT } && $cv->FILE eq $file;
            push @cvs, $cv;
        }
    }
    return @cvs;
}

sub _pad_values {
    my ($cv) = @_;
    my $padlist = $cv->PADLIST;
    return () unless $padlist && $$padlist;
    my (undef, $pad) = $padlist->ARRAY;
    return $pad && $$pad ? grep { $$_ } $pad->ARRAY : ();
}

sub _pad_sv {
    my ($cv, $ix) = @_;
    my (undef, $pad) = $cv->PADLIST->ARRAY;
    return ($pad->ARRAY)[$ix];
}

# The variable an op names, as a key: "my" VARIABLE (the pad slot of the
# sub that declares it) or "our" NAME; undef for any other op.
sub _var {
    my ($self, $cv, $op) = @_;
    my $name = $op->name;
    if ($name eq 'padsv') {
        return _lexical($cv, $op->targ);
    }
    if ($name eq 'rv2sv' || ($name eq 'null' && $op->targ == $RV2SV)) {
        my $kid = $op->first;
        return undef unless $$kid && ($kid->name eq 'gv' || $kid->name eq 'gvsv');
        my $gv = $kid->can('padix') && $kid->padix ? _pad_sv($cv, $kid->padix) : $kid->gv;
        return undef unless $gv->isa('B::GV');
        return 'our ' . $gv->STASH->NAME . '::' . $gv->NAME;
    }
    return undef;
}

# The lexical scalar at pad slot IX of CV, if it is one with a name
# (most ops' targets are nameless temporaries).
sub _named_lexical {
    my ($cv, $ix) = @_;
    my ($names) = $cv->PADLIST->ARRAY;
    my $pn = ($names->ARRAY)[$ix];
    return undef unless $pn && $$pn && ($pn->PV // '') =~ /\A\$/;
    return _lexical($cv, $ix);
}

# A lexical by the sub that declares it: a closure's outer names lead there.
sub _lexical {
    my ($cv, $ix) = @_;
    for (1 .. 100) {
        my ($names) = $cv->PADLIST->ARRAY;
        my $pn = ($names->ARRAY)[$ix];
        return undef unless $pn && $$pn;
        return "my ${$cv} $ix" unless $pn->FLAGS & B::PADNAMEt_OUTER();
        my $outside = $cv->OUTSIDE;
        return undef unless $outside && $$outside && $outside->isa('B::CV');
        ($cv, $ix) = ($outside, $pn->PARENT_PAD_INDEX);
    }
    return undef;
}

# Walks OP (of CV), noting every write to a scalar variable and every
# DBI connect.
sub _walk {
    my ($self, $cv, $op, $parent) = @_;
    return unless $op && $$op;
    my $name = $op->name;
    if ($name eq 'entersub' && (my $site = _site($self, $cv, $op))) {
        push $self->{sites}->@*, $site;
        # (its arguments are read, though perl marks them modifiable)
        for my $arg ($site->{arg_ops}->@*) {
            $self->{skip}{$$arg} = 1;
        }
    } elsif ($name eq 'sassign') {
        my $rhs = $op->first;
        my $lhs = $rhs->sibling;
        my $var = $$lhs ? _var($self, $cv, $lhs) : undef;
        if ($var) {
            _write($self, $var, $cv, _literal($self, $cv, $rhs) // _string($rhs, $cv));
            $self->{skip}{$$lhs} = 1;
        }
    } elsif ($name eq 'aassign') {
        my @rhs = _list($op->first);
        my @lhs = _list($op->first->sibling);
        my @value = map { _literal($self, $cv, $_) } @rhs;
        @value = () if grep { !$_ } @value;
        for my $i (0 .. $#lhs) {
            my $var = _var($self, $cv, $lhs[$i]) or next;
            _write($self, $var, $cv, @value && $i < @rhs ? $value[$i] : undef);
            $self->{skip}{ ${ $lhs[$i] } } = 1;
        }
    }
    if (!$self->{skip}{$$op} && (my $var = _var($self, $cv, $op))) {
        # (a `my` outside an assignment declares; a `local` writes)
        my $declares = $name eq 'padsv' && $op->private & $INTRO;
        _write($self, $var, $cv, undef) if $op->flags & $MOD && !$declares;
    } elsif ($op->private & $TARGET_MY
        && $op->targ
        && $name ne 'padsv'
        && (my $target = _named_lexical($cv, $op->targ)))
    {
        # (`my $x = "...$y"`, `$x .= ...`, `$x = $a + $b`: the op writes the lexical itself)
        _write($self, $target, $cv, $name eq 'multiconcat' && !($op->private & $APPEND) ? [$op, $cv, 'string'] : undef);
    } elsif ($name eq 'multiconcat' && $op->flags & $STACKED && !($op->private & $APPEND)) {
        # (`$pkg = "...$y"`: the variable is the op's last kid)
        my @kids = _real_kids($op);
        my $var = @kids ? _var($self, $cv, $kids[-1]) : undef;
        if ($var) {
            _write($self, $var, $cv, [$op, $cv, 'string']);
            $self->{skip}{ ${ $kids[-1] } } = 1;
        }
    }
    return unless $op->flags & $KIDS;
    for (my $kid = $op->first; $$kid; $kid = $kid->sibling) {
        _walk($self, $cv, $kid, $op);
    }
}

# A write of VALUE to the variable VAR in CV: [VALUE], [OP, CV, 'string']
# (an interpolated string, made when it is asked for), or undef: not
# known. One outside the file's top level is never known.
sub _write {
    my ($self, $var, $cv, $value) = @_;
    push $self->{writes}{$var}->@*, $$cv == $self->{main} ? $value : undef;
}

# An rvalue interpolated string (a multiconcat that assigns nothing itself):
# [OP, CV, 'string'], else undef.
sub _string {
    my ($op, $cv) = @_;
    return undef unless $$op && $op->name eq 'multiconcat';
    return undef if $op->private & ($TARGET_MY | $APPEND) || $op->flags & $STACKED;
    return [$op, $cv, 'string'];
}

# The kids of an op that are not bare placeholders (nulled ops without
# kids of their own: a pushmark, the target a multiconcat took over).
sub _real_kids {
    my ($op) = @_;
    my @kids;
    for (my $kid = $op->first; $$kid; $kid = $kid->sibling) {
        push @kids, $kid unless $kid->name eq 'null' && !($kid->flags & $KIDS);
    }
    return @kids;
}

# [VALUE] of the interpolated string of the multiconcat OP: its constant
# parts and its arguments, each of which must have a value.
sub _concat {
    my ($self, $op, $cv) = @_;
    # (strings made of strings: a few deep at most, and never a cycle)
    local $self->{depth} = ($self->{depth} // 0) + 1;
    return undef if $self->{depth} > 20;
    my ($nargs, $const, @lengths) = $op->aux_list($cv);
    my @args = (_real_kids($op))[0 .. $nargs - 1];
    my $out = '';
    my $at = 0;
    for my $i (0 .. $nargs) {
        my $length = $lengths[$i] // -1;
        if ($length > 0) {
            $out .= substr $const, $at, $length;
            $at += $length;
        }
        next if $i == $nargs;
        my $value = $args[$i] ? _value($self, [$args[$i], $cv]) : undef;
        return undef unless $value && defined $value->[0] && !ref $value->[0];
        $out .= $value->[0];
    }
    return [$out];
}

# The ops of a list (an aassign side): its kids but the pushmark or padrange.
sub _list {
    my ($op) = @_;
    return () unless $$op && $op->flags & $KIDS;
    my @ops;
    for (my $kid = $op->first; $$kid; $kid = $kid->sibling) {
        push @ops, $kid unless $kid->name eq 'pushmark' || $kid->name eq 'padrange';
    }
    return @ops;
}

# [VALUE] of a literal op (a constant; an anonymous hash of constants),
# else undef.
sub _literal {
    my ($self, $cv, $op) = @_;
    return undef unless $op && $$op;
    return [undef] if $op->name eq 'undef' && !($op->flags & $KIDS);
    if ($op->name eq 'const') {
        my $sv = $op->sv;
        $sv = _pad_sv($cv, $op->targ) unless $$sv;
        # (perl's own undef is a B::SPECIAL of index 1)
        return $$sv == 1 ? [undef] : undef if $sv->isa('B::SPECIAL');
        my $value = ${ $sv->object_2svref };
        return ref $value ? undef : [$value];
    }
    return undef;
}

# A DBI->connect or DBI->connect_cached: { args => [[OP, CV]...], arg_ops }.
sub _site {
    my ($self, $cv, $op) = @_;
    my @kids = _list($op->first->flags & $KIDS && $op->first->name eq 'null' ? $op->first : $op);
    return undef unless @kids >= 3;
    my $meth = pop @kids;
    return undef unless $meth->name eq 'method_named';
    my $sv = $meth->meth_sv;
    $sv = _pad_sv($cv, $meth->targ) unless $$sv;
    my $method = ${ $sv->object_2svref } // '';
    return undef unless $method eq 'connect' || $method eq 'connect_cached';
    my $class = _literal($self, $cv, shift @kids);
    return undef unless $class && ($class->[0] // '') eq 'DBI';
    my @args = map { [$_, $cv] } @kids;
    my @arg_ops = @kids;

    for my $kid (@kids) {
        # (the attributes: an anonymous hash, its keys and values)
        push @arg_ops, _list($kid) if $kid->name eq 'anonhash';
    }
    return { args => \@args, arg_ops => \@arg_ops };
}

# [VALUE] of an argument: a literal, a scalar written once by a literal
# (at the file's top level), an anonymous hash of those; else undef.
sub _value {
    my ($self, $arg) = @_;
    my ($op, $cv) = @$arg;
    if ($op->name eq 'anonhash') {
        my @pairs = map { _value($self, [$_, $cv]) } _list($op);
        return undef if grep { !$_ } @pairs;
        return undef if @pairs % 2;
        my %hash = map { $_->[0] // '' } @pairs;
        return [\%hash];
    }
    # (a value in parentheses, or `scalar ...`)
    if ($op->name eq 'null' && $op->flags & $KIDS && !_var($self, $cv, $op)) {
        my @kids = _list($op);
        return @kids == 1 ? _value($self, [$kids[0], $cv]) : undef;
    }
    my $literal = _literal($self, $cv, $op);
    return $literal if $literal;
    if (my $string = _string($op, $cv)) {
        return _concat($self, $string->@[0, 1]);
    }
    my $var = _var($self, $cv, $op) or return undef;
    my $writes = $self->{writes}{$var} or return undef;
    return undef unless @$writes == 1 && $writes->[0];
    return $writes->[0]->@* == 3 ? _concat($self, $writes->[0]->@[0, 1]) : $writes->[0];
}

1;
__END__

=head1 NAME

Kamado::DBI::Predict - the database connections a compiled CGI script will make, read from its op tree

=head1 SYNOPSIS

    # in a process forked from fork mode's zygote, once the script is compiled
    require Kamado::DBI::Predict;
    my @connects = Kamado::DBI::Predict::connects($0);   # ([DSN, USER, PASS, ATTR]...)

=head1 DESCRIPTION

See the comment at the top of the source and L<Kamado::DBI::Lend>.

=cut
