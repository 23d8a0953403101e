package Kamado::Check::Flow;
use 5.024;
use strict;
use warnings;

use Kamado::Check::Hazard qw(hazard words symbols assigned);

# Control flow (doc/CGI-HAZARDS.md A): exit, die handlers and $^S, fork.

sub hazards {
    my ($class, $f, $c) = @_;
    my ($doc, $p) = ($f->{doc}, $f->{path});
    my @h;
    if (my ($w) = words($doc, 'exit')) {
        push @h, hazard(A1 => $p, $w->line_number, registry =>
            '`exit` would end a kept interpreter; in-process it ends the script only (inside eval too)');
    }
    my @fork = words($doc, 'fork');
    for my $w (words($doc, qw(CORE::exit POSIX::_exit _exit CORE::GLOBAL::exit))) {
        push @h, @fork
            ? hazard(A2 => $p, $w->line_number, registry => '`' . $w->content . '` after `fork`: the child ends, not the worker')
            : hazard(A2 => $p, $w->line_number, fork => '`' . $w->content . '` bypasses the exit override: it would end the worker');
    }
    for my $s (symbols($doc, qr/\A\$SIG\z/)) {
        my $key = $s->snext_sibling;
        next unless $key && $key->isa('PPI::Structure::Subscript') && $key->content =~ /__DIE__/ && assigned($s);
        push @h, hazard(A3 => $p, $s->line_number, registry =>
            'sets $SIG{__DIE__}: in-process `exit` does not call it, and it is the script\'s own');
        last;
    }
    if (my ($s) = symbols($doc, qr/\A\$\^S\z/)) {
        push @h, hazard(A3 => $p, $s->line_number, fork =>
            'reads $^S: it is true in-process (the server runs scripts inside an eval), so its die handler takes another path');
    }
    if (my ($use) = grep { ($_->module // '') eq 'CGI::Carp' && $_->content =~ /fatalsToBrowser/ }
        @{ $doc->find('PPI::Statement::Include') || [] }) {
        push @h, hazard(A3 => $p, $use->line_number, registry => 'CGI::Carp fatalsToBrowser: Kamado asks whether the script itself is in an eval');
    }
    if (my ($w) = @fork) {
        push @h, hazard(A5 => $p, $w->line_number, registry => '`fork`: the child\'s `exit` ends the child only');
    }
    return @h;
}

1;
__END__

=head1 NAME

Kamado::Check::Flow - kamado check: control-flow hazards (exit, die handlers, $^S, fork)

=cut
