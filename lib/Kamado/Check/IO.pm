package Kamado::Check::IO;
use 5.024;
use strict;
use warnings;

use Kamado::Check::Hazard qw(hazard words symbols assigned);

# Input and output (doc/CGI-HAZARDS.md D), CGI.pm's and CGI::Carp's
# state (E1), and the loops of CGI::Fast.

sub hazards {
    my ($class, $f, $c) = @_;
    my ($doc, $p) = ($f->{doc}, $f->{path});
    my @h;
    if (my ($w) = words($doc, qw(system exec format write))) {
        push @h, hazard(D3 => $p, $w->line_number, registry => '`' . $w->content
            . '`: STDIN and STDOUT are real descriptors in every mode');
    }
    # a page that streams while it works (progress output): in-process the
    # response is sent when the script ends
    my ($flush) = grep { assigned($_) } symbols($doc, qr/\A\$\|\z/);
    ($flush) = words($doc, 'autoflush') unless $flush;
    my ($wait) = words($doc, qw(sleep usleep));
    if ($flush && $wait) {
        push @h, hazard(D5 => $p, $wait->line_number, fork =>
            'flushes its output and waits (line ' . $flush->line_number . '): a page that streams needs a process of its own');
    }
    if (defined $f->{data}) {
        push @h, hazard(D8 => $p, ($f->{text} =~ tr/\n//) + 1, registry => '__END__/__DATA__: DATA is read afresh in each run');
    }
    for my $inc (@{ $doc->find('PPI::Statement::Include') || [] }) {
        next unless ($inc->module // '') eq 'CGI::Fast';
        push @h, hazard(E1 => $p, $inc->line_number, registry =>
            'CGI::Fast: its request loop goes round once per run, as under CGI');
        last;
    }
    if ($f->{text} =~ /warningsToBrowser/ && carp_leaks($c)) {
        my $n = 0;
        my ($line) = grep { $n++; /warningsToBrowser/ ? ($_ = $n) : 0 } split /\n/, $f->{text};
        push @h, hazard(E1 => $p, $line, fork => "CGI::Carp $c->{carp_version} warningsToBrowser: its buffer carries one request's "
            . 'warnings into the next (CVE-2026-120634, fixed in CGI.pm 5.00)');
    }
    return @h;
}

# Whether the CGI::Carp the script gets has the warningsToBrowser leak.
sub carp_leaks {
    my ($c) = @_;
    $c->{carp_version} //= do {
        require ExtUtils::MakeMaker;
        my ($file) = grep { -f } map { "$_/CGI/Carp.pm" } grep { !ref } @INC;
        $file ? MM->parse_version($file) : 0;
    };
    return !($c->{carp_version} =~ /\A(\d+)/ && $1 >= 5);
}

1;
__END__

=head1 NAME

Kamado::Check::IO - kamado check: input/output hazards, CGI.pm and CGI::Fast

=cut
