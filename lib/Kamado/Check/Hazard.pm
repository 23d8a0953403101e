package Kamado::Check::Hazard;
use 5.024;
use strict;
use warnings;

use Exporter 'import';
use JSON::PP ();
our @EXPORT_OK = qw(hazard words symbols in_named_sub in_begin assigned is_local rank);

# What the hazard families (Kamado::Check::Flow, Scope, Paths, IO,
# Process, Compiled) share: a hazard's record and the PPI look-ups.
#
# A hazard: { id (doc/CGI-HAZARDS.md), file, line, message, needs, neutralised }.
# needs is the fastest mode that still runs the script as plain CGI with
# this hazard in it: registry when Kamado's in-process modes neutralise it
# (then neutralised is true), perlrun when only compiling per request does
# (compile-time state), fork when only a process of its own does.

my %RANK = (registry => 0, perlrun => 1, fork => 2, exec => 3);
sub rank { $RANK{ $_[0] } }

sub hazard {
    my ($id, $file, $line, $needs, $message) = @_;
    return { id => $id, file => $file, line => $line + 0, needs => $needs, message => $message,
        neutralised => $needs eq 'registry' ? JSON::PP::true() : JSON::PP::false() };
}

# The words of DOC named one of NAMES (function calls and keywords; not
# method names, hash keys or `sub NAME`).
sub words {
    my ($doc, @names) = @_;
    my %name = map { $_ => 1 } @names;
    my $found = $doc->find(sub {
        my $t = $_[1];
        return 0 unless $t->isa('PPI::Token::Word') && $name{ $t->content };
        my $prev = $t->sprevious_sibling;
        return 0 if $prev && $prev->isa('PPI::Token::Operator') && $prev->content eq '->';
        return 0 if $prev && $prev->isa('PPI::Token::Word') && $prev->content =~ /\A(?:sub|package|use|no|require)\z/;
        my $next = $t->snext_sibling;
        return 0 if $next && $next->isa('PPI::Token::Operator') && $next->content eq '=>';
        return 0 if $t->parent && $t->parent->isa('PPI::Statement::Expression') && $t->parent->parent
            && $t->parent->parent->isa('PPI::Structure::Subscript');
        return 1;
    }) || [];
    return @$found;
}

# The symbols of DOC matching RE ($SIG{...} is the symbol %SIG read as
# $SIG: PPI's symbol() says %SIG; content says $SIG).
sub symbols {
    my ($doc, $re) = @_;
    my $found = $doc->find(sub {
        ($_[1]->isa('PPI::Token::Symbol') || $_[1]->isa('PPI::Token::Magic')) && $_[1]->content =~ $re
    }) || [];
    return @$found;
}

# Whether ELEMENT is inside a named sub (not an anonymous one).
sub in_named_sub {
    my ($el) = @_;
    for (my $p = $el->parent; $p; $p = $p->parent) {
        return 1 if $p->isa('PPI::Statement::Sub') && !$p->isa('PPI::Statement::Scheduled') && defined $p->name;
    }
    return 0;
}

# Whether ELEMENT runs at compile time: in a BEGIN block, or in the
# arguments of a `use`.
sub in_begin {
    my ($el) = @_;
    for (my $p = $el->parent; $p; $p = $p->parent) {
        return 1 if $p->isa('PPI::Statement::Scheduled') && $p->type eq 'BEGIN';
        return 1 if $p->isa('PPI::Statement::Include') && $p->type eq 'use';
    }
    return 0;
}

# Whether the symbol or word EL is assigned to (the next operator is an
# assignment), with a subscript in between allowed ($SIG{ALRM} = ...).
sub assigned {
    my ($el) = @_;
    my $next = $el->snext_sibling;
    $next = $next->snext_sibling while $next && $next->isa('PPI::Structure::Subscript');
    return $next && $next->isa('PPI::Token::Operator') && $next->content =~ /\A(?:[.+\-*\/|&^x]|\|\||&&|\/\/)?=\z/ ? 1 : 0;
}

# Whether EL is the object of a `local` (local $/ = undef).
sub is_local {
    my ($el) = @_;
    my $prev = $el->sprevious_sibling;
    return $prev && $prev->isa('PPI::Token::Word') && $prev->content eq 'local' ? 1 : 0;
}

1;
__END__

=head1 NAME

Kamado::Check::Hazard - a hazard found by kamado check, and the PPI look-ups the families share

=cut
