package Kamado::Check::Compiled;
use 5.024;
use strict;
use warnings;

use Kamado::Check::Hazard qw(hazard);

# What the compile probe (Kamado::Check::Probe) saw: named subs closing
# over file lexicals (B1), handlers set while compiling (A3, E4, and the
# __WARN__ one the in-process modes drop), request data read at compile
# time, /o and state in the compiled code (B8).

sub hazards {
    my ($class, $probe, $script) = @_;
    my @h;
    my %closure_seen;
    for my $c (($probe->{closures} // [])->@*) {
        my ($file, $line, $sub, $names) = @$c;
        next if $closure_seen{$file}++ >= 3;
        push @h, hazard(B1 => $file, $line, registry => "sub $sub uses the file's @$names: Kamado points it at each run's variables");
    }
    for my $name (($probe->{sig} // [])->@*) {
        push @h, hazard($name eq '__DIE__' ? 'A3' : 'E4', $script, 1, registry =>
            "sets \$SIG{$name} while compiling: kept with the script, for its runs only");
    }
    if ($probe->{warn_handler}) {
        my $h = hazard(A3 => $script, 1, registry =>
            'sets $SIG{__WARN__} while compiling (CGI::Carp): in-process its warnings reach the log without it; the response is the same');
        $h->{neutralised} = JSON::PP::false();
        push @h, $h;
    }
    my %env_seen;
    for my $r (($probe->{env_read} // [])->@*) {
        my ($name, $file, $line) = @$r;
        next if $env_seen{$name}++;
        push @h, hazard(B6 => $file, $line, perlrun =>
            "reads \$ENV{$name} while compiling: kept compiled, the first request's value would serve every later one");
    }
    for my $k (($probe->{keep} // [])->@*) {
        push @h, hazard(B8 => $k->[0], $k->[1], perlrun => 'a /o pattern that interpolates: compiled once, it keeps the first request\'s value');
    }
    for my $s (($probe->{state} // [])->@*) {
        push @h, hazard(B8 => $s->[0], $s->[1], perlrun => "state $s->[2]: it keeps its value from one request to the next");
    }
    if ($probe->{exit_compiling}) {
        push @h, hazard(A1 => $script, 1, registry => '`exit` while compiling: the script is compiled (and exits) again on its next request');
    }
    return @h;
}

1;
__END__

=head1 NAME

Kamado::Check::Compiled - kamado check: the hazards the compile probe shows

=cut
