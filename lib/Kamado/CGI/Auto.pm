package Kamado::CGI::Auto;
use 5.024;
use strict;
use warnings;

use Kamado::CGI::Source;
use Kamado::Log;

# --cgi-mode auto: each script runs in kamado check's verdict
# (Kamado::Check), the fastest mode that runs it as plain CGI. The
# verdict is made when the script is first mapped (in the generation,
# before the workers fork, with --preload-cgi: they inherit it) and kept
# while the script and every file it pulls in are unchanged; a change to
# any of them makes it again. Each verdict made is logged once, with its
# reason; a script that gets a slower mode than it had is logged as a
# warning.

our $MAX = 1000;    # verdicts kept (past it, all are forgotten)
my %verdict;        # script path -> { mode, reason, files => { path => key } }
my %last;           # script path -> the mode its previous verdict gave

# verdict(FILE) -> { mode, reason, files }: kept, or made now.
sub verdict {
    my ($class, $file) = @_;
    my $v = $verdict{$file};
    return $v if $v && Kamado::CGI::Source::unchanged($v->{files});
    require Kamado::Check;
    my $r = eval { Kamado::Check->script($file) }
        // { mode => 'fork', reason => "the check failed: $@", files => { $file => Kamado::CGI::Source::file_key($file) } };
    %verdict = () if keys %verdict >= $MAX;
    $v = $verdict{$file} = { mode => $r->{mode}, reason => $r->{reason}, files => $r->{files}, serial => 0,
        packages => $r->{packages} };
    my $before = $last{$file};
    $last{$file} = $v->{mode};
    if ($before && $before ne $v->{mode} && _rank($v->{mode}) > _rank($before)) {
        Kamado::Log->warn("cgi auto: $file changed: $before -> $v->{mode} mode: $v->{reason}");
    } elsif (!$before || $before ne $v->{mode}) {
        Kamado::Log->info("cgi auto: $file runs in $v->{mode} mode: $v->{reason}");
    }
    return $v;
}

# demote(FILE, MODE, REASON): what a run showed (Kamado::CGI::Auto::Net)
# sends the script to MODE for the requests after, in this worker, until
# the script or a file it pulls in changes; logged. Never a faster mode.
sub demote {
    my ($class, $file, $mode, $reason) = @_;
    my $v = $verdict{$file} or return;
    return if _rank($mode) <= _rank($v->{mode});
    Kamado::Log->warn("cgi auto: $file demoted: $v->{mode} -> $mode mode: $reason");
    @$v{qw(mode reason)} = ($mode, $reason);
    $v->{serial}++;
    $last{$file} = $mode;
    return 1;
}

# The verdicts made so far: { script path => { mode, reason } }.
sub verdicts { return { map { ($_ => { mode => $verdict{$_}{mode}, reason => $verdict{$_}{reason} }) } keys %verdict } }

my %RANK = (registry => 0, perlrun => 1, fork => 2, exec => 3);
sub _rank { $RANK{ $_[0] } // 3 }

1;
__END__

=head1 NAME

Kamado::CGI::Auto - each CGI script in the mode kamado check chooses for it (--cgi-mode auto)

=head1 SYNOPSIS

    my $v = Kamado::CGI::Auto->verdict('/srv/cgi-bin/board.cgi');
    # { mode => 'registry', reason => '...', files => { path => key } }

=cut
