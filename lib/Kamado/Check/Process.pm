package Kamado::Check::Process;
use 5.024;
use strict;
use warnings;

use Kamado::Check::Hazard qw(hazard words symbols assigned is_local);

# Process-global state (doc/CGI-HAZARDS.md E).

sub hazards {
    my ($class, $f, $c) = @_;
    my ($doc, $p) = ($f->{doc}, $f->{path});
    my @h;
    if (my ($s) = grep { assigned($_) } symbols($doc, qr/\A[\$%]ENV\z/)) {
        push @h, hazard(E2 => $p, $s->line_number, registry => 'changes %ENV: each run gets exactly its request\'s environment');
    }
    if (my ($s) = grep { assigned($_) && !is_local($_) } symbols($doc, qr/\A\$(?:\/|\\|,|"|;)\z/)) {
        push @h, hazard(E3 => $p, $s->line_number, registry => 'sets ' . $s->content . ': special variables are put back after each run');
    }
    if (my ($w) = words($doc, 'alarm')) {
        push @h, hazard(E4 => $p, $w->line_number, registry => '`alarm`: a pending alarm is cancelled at the end of the run');
    }
    if (my ($s) = grep { assigned($_) && !is_local($_) && ($_->snext_sibling // '') !~ /__(?:DIE|WARN)__/ } symbols($doc, qr/\A\$SIG\z/)) {
        push @h, hazard(E4 => $p, $s->line_number, registry => 'sets %SIG: handlers are put back after each run');
    }
    if (my ($w) = words($doc, 'srand')) {
        push @h, hazard(E5 => $p, $w->line_number, registry => '`srand`: each worker seeds its own generator');
    }
    if (my ($w) = words($doc, 'flock')) {
        push @h, hazard(E7 => $p, $w->line_number, registry => '`flock`: the files a run left open are closed at its end');
    }
    if (my ($w) = words($doc, 'umask')) {
        push @h, hazard(E8 => $p, $w->line_number, registry => '`umask`: put back after each run');
    }
    if (my ($w) = words($doc, qw(setlocale POSIX::setlocale))) {
        push @h, hazard(E8 => $p, $w->line_number, registry => '`setlocale`: each run starts in the locale of its environment');
    }
    if (my ($w) = (words($doc, qw(tempfile tempdir)), @{ $doc->find(sub { $_[1]->isa('PPI::Statement::Include') && ($_[1]->module // '') eq 'File::Temp' }) || [] })) {
        push @h, hazard(E11 => $p, $w->line_number, registry => 'File::Temp: its files are removed at the end of each run');
    }
    return @h;
}

1;
__END__

=head1 NAME

Kamado::Check::Process - kamado check: process-global state (%ENV, special variables, %SIG, locale, #! switches)

=cut
