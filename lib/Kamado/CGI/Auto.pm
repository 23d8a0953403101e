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
# Where every worker says which mode each script got and why, for the
# status process (Kamado::Status): a file without a name, opened for
# appending by the supervisor before it forks anything (share), one
# JSON line per verdict or demotion. Lines under 4 KiB, each written by
# one write: workers' lines do not mix.
our $SHARED;
use constant MAX_SHARED => 4 << 20;    # past it, the file is emptied
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
    _tell($file, $v);
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
    _tell($file, $v, 1);
    return 1;
}

# The verdicts made so far: { script path => { mode, reason } }.
sub verdicts { return { map { ($_ => { mode => $verdict{$_}{mode}, reason => $verdict{$_}{reason} }) } keys %verdict } }

# share(): the shared file made (in the supervisor, before any fork).
sub share {
    return $SHARED if $SHARED;
    require File::Temp;
    my $fh = File::Temp::tempfile();    # (unlinked: only the processes that hold it see it)
    # (opened again for appending: a description of its own, O_APPEND)
    open $SHARED, '>>', '/proc/self/fd/' . fileno $fh or return undef;
    return $SHARED;
}

sub _tell {
    my ($file, $v, $demoted) = @_;
    return unless $SHARED;
    require JSON::PP;
    my $line = JSON::PP->new->canonical->encode({ script => $file, mode => $v->{mode},
        reason => substr($v->{reason} // '', 0, 2000), demoted => $demoted ? JSON::PP::true() : JSON::PP::false(),
        pid => $$, time => time }) . "\n";
    truncate $SHARED, 0 if -s $SHARED > MAX_SHARED;
    syswrite $SHARED, $line;
}

# shared() -> [{ script, mode, reason, demoted, pid, time }...]: what the
# workers said, the latest word per script and worker, by script.
sub shared {
    return [] unless $SHARED;
    require JSON::PP;
    # (a description of its own: the reading does not move the writers' offset)
    open my $in, '<', '/proc/self/fd/' . fileno $SHARED or return [];
    my %latest;
    while (my $line = <$in>) {
        my $w = eval { JSON::PP->new->decode($line) } or next;
        $latest{"$w->{script}\0$w->{pid}"} = $w;
    }
    return [sort { $a->{script} cmp $b->{script} || $a->{pid} <=> $b->{pid} } values %latest];
}

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
