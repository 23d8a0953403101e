package Kamado::Check::Paths;
use 5.024;
use strict;
use warnings;

use Kamado::Check::Hazard qw(hazard words symbols);

# Files, paths, @INC (doc/CGI-HAZARDS.md C): all neutralised in-process
# (the run's cwd is the script's, FindBin and $0 are the script's, @INC
# is put back); reported so that a reader sees what Kamado takes care of.

sub hazards {
    my ($class, $f, $c) = @_;
    my ($doc, $p) = ($f->{doc}, $f->{path});
    my @h;
    if (my ($w) = words($doc, 'chdir')) {
        push @h, hazard(C1 => $p, $w->line_number, registry => '`chdir`: each run starts in the script\'s directory');
    }
    for my $inc (@{ $doc->find('PPI::Statement::Include') || [] }) {
        next unless ($inc->module // '') eq 'lib' && $inc->content !~ /\A\s*use\s+lib\s+['"]?\//;
        push @h, hazard(C2 => $p, $inc->line_number, registry => 'a relative `use lib`: compiled in the script\'s directory');
        last;
    }
    if (my ($s) = (words($doc, 'FindBin'), symbols($doc, qr/\A\$0\z/),
        @{ $doc->find(sub { $_[1]->isa('PPI::Statement::Include') && ($_[1]->module // '') eq 'FindBin' }) || [] })) {
        push @h, hazard(C4 => $p, $s->line_number, registry => 'FindBin or $0: they name this script in each run');
    }
    if (my ($op) = @{ $doc->find(sub { $_[1]->isa('PPI::Token::Operator') && $_[1]->content =~ /\A-[MAC]\z/ }) || [] }) {
        push @h, hazard(C5 => $p, $op->line_number, registry => 'a file age test (' . $op->content . '): $^T is the run\'s start');
    }
    return @h;
}

1;
__END__

=head1 NAME

Kamado::Check::Paths - kamado check: current directory, @INC, FindBin and file-age hazards

=cut
