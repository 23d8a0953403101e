package Kamado::Check::Report;
use 5.024;
use strict;
use warnings;

use JSON::PP ();

# kamado check's output: for people (text), --json, --sarif.

my @ORDER = qw(registry perlrun fork exec);

# text(RESULTS) -> one line per script (mode, hazards), its hazards
# under it, a summary line.
sub text {
    my ($class, $results) = @_;
    my $out = '';
    my %count;
    for my $r (@$results) {
        $count{ $r->{mode} }++;
        my $n = $r->{hazards}->@*;
        my $open = grep { !$_->{neutralised} } $r->{hazards}->@*;
        $out .= sprintf "%-8s %s (%d hazard%s%s): %s\n", $r->{mode}, $r->{script}, $n, $n == 1 ? '' : 's',
            ($n ? ", $open not neutralised" : ''), $r->{reason};
        for my $h ($r->{hazards}->@*) {
            $out .= sprintf "    %-4s %s:%d %s%s\n", $h->{id}, _rel($h->{file}, $r->{script}), $h->{line},
                $h->{neutralised} ? '[neutralised] ' : '', $h->{message};
        }
    }
    my $total = @$results;
    $out .= "$total script" . ($total == 1 ? '' : 's') . ': '
        . (join(', ', map { "$count{$_} $_" } grep { $count{$_} } @ORDER) || 'none') . "\n";
    return $out;
}

sub json {
    my ($class, $results) = @_;
    return JSON::PP->new->canonical->pretty->encode([map { _public($_) } @$results]);
}

# SARIF 2.1.0: one rule per hazard id, a result per hazard (warning when
# not neutralised, note when it is) and one per script for its verdict.
sub sarif {
    my ($class, $results) = @_;
    my (%rules, @out);
    for my $r (@$results) {
        push @out, _result('verdict', 'note', "runs in $r->{mode} mode: $r->{reason}", $r->{script}, 1);
        for my $h ($r->{hazards}->@*) {
            $rules{ $h->{id} } = 1;
            push @out, _result($h->{id}, $h->{neutralised} ? 'note' : 'warning',
                "$h->{message} (script $r->{script}, verdict $r->{mode})", $h->{file}, $h->{line});
        }
    }
    my $doc = {
        '$schema' => 'https://json.schemastore.org/sarif-2.1.0.json',
        version   => '2.1.0',
        runs      => [{
            tool => { driver => { name => 'kamado check', informationUri => 'https://metacpan.org/pod/kamado',
                rules => [map { { id => $_, shortDescription => { text => "doc/CGI-HAZARDS.md $_" } } } 'verdict', sort keys %rules] } },
            results => \@out,
        }],
    };
    return JSON::PP->new->canonical->pretty->encode($doc);
}

sub _result {
    my ($id, $level, $text, $file, $line) = @_;
    return { ruleId => $id, level => $level, message => { text => $text },
        locations => [{ physicalLocation => { artifactLocation => { uri => "file://$file" },
            region => { startLine => ($line || 1) + 0 } } }] };
}

sub _public {
    my ($r) = @_;
    return { script => $r->{script}, mode => $r->{mode}, reason => $r->{reason},
        hazards => [map { my $h = $_; +{ map { ($_ => $h->{$_}) } qw(id file line message neutralised) } } $r->{hazards}->@*],
        (defined $r->{error} ? (error => $r->{error}) : ()) };
}

sub _rel {
    my ($file, $script) = @_;
    my ($dir) = $script =~ m{\A(.*/)};
    return index($file, $dir) == 0 ? substr($file, length $dir) : $file;
}

1;
__END__

=head1 NAME

Kamado::Check::Report - kamado check's output: text, JSON, SARIF

=cut
