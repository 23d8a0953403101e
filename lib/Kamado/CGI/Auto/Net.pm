package Kamado::CGI::Auto::Net;
use 5.024;
use strict;
use warnings;

use Kamado::CGI::Auto;

# The run-time net of --cgi-mode auto (issue 24, item 3): what a run in
# the worker shows and the static check cannot see demotes the script to
# the next safer mode for the requests after, with one log line naming
# the script, the hazard and what changed. Never silent, never a
# promotion. Looked at around each in-process run of a script whose mode
# auto chose:
#
# - the package variables of the modules of its tree (packages of their
#   own, which the in-process modes do not put back: doc/CGI-HAZARDS.md
#   B5): a run that changes them leaves state for the next request, as
#   under no CGI. Compared from one run's end to the next's (a first run
#   that loads them cannot tell their loading from its changes), or from
#   before the first run when they were loaded already (--preload-cgi);
#   demoted to fork, where nothing of a run survives.
# (The locale, %SIG, umask and the rest of the process's state are put
# back by the in-process modes themselves: Kamado::CGI::InProcess::World.)

use constant MAX_DEPTH => 4;

# before(ENTRY) -> what after() compares with (the state of the run
# before is kept with the verdict; for the first run, the state now when
# the modules are loaded already: compiled in the generation, with
# --preload-cgi, so that the first run's changes are seen too).
sub before {
    my ($class, $entry) = @_;
    my $v = $entry->{verdict};
    if (!$v->{net_state} && $entry->{packages}) {
        no strict 'refs';
        $v->{net_state} = fingerprint($entry->{packages}->@*)
            unless grep { !%{"${_}::"} } $entry->{packages}->@*;
    }
    return {};
}

# after(ENTRY, BEFORE): the demotion, when the run left a trace.
sub after {
    my ($class, $entry, $before) = @_;
    my $file = $entry->{file};
    my $packages = $entry->{packages} or return;
    my $now = fingerprint(@$packages);
    # (kept with the verdict: a path with a link on the way is mapped anew each time)
    my $last = $entry->{verdict}{net_state};
    $entry->{verdict}{net_state} = $now;
    return unless $last;
    for my $name (sort keys %$now) {
        next if ($last->{$name} // '') eq $now->{$name};
        return Kamado::CGI::Auto->demote($file, fork =>
            "B5 at run time: a run changed $name, a variable of a module of its own that is kept between requests");
    }
}

# { sigil.package::name => its value as text } of the package variables
# of PACKAGES (plain data, MAX_DEPTH levels deep).
sub fingerprint {
    my (@packages) = @_;
    my %f;
    no strict 'refs';
    for my $p (@packages) {
        my $stash = \%{"${p}::"};
        for my $name (keys %$stash) {
            next if $name =~ /::\z/ || $name =~ /\A(?:ISA|EXPORT|EXPORT_OK|EXPORT_TAGS|VERSION|BEGIN|END|AUTOLOAD|DESTROY|__ANON__)\z/;
            my $glob = $stash->{$name};
            next unless ref \$glob eq 'GLOB';
            $f{"\$${p}::$name"} = _text(${ *{$glob}{SCALAR} }, 0) if defined ${ *{$glob}{SCALAR} };
            $f{"\@${p}::$name"} = _text(*{$glob}{ARRAY}, 0) if *{$glob}{ARRAY} && @{ *{$glob}{ARRAY} };
            $f{"%${p}::$name"} = _text(*{$glob}{HASH}, 0) if *{$glob}{HASH} && %{ *{$glob}{HASH} };
        }
    }
    return \%f;
}

sub _text {
    my ($v, $depth) = @_;
    my $type = ref $v;
    return defined $v ? "$v" : '' if !$type || $depth >= MAX_DEPTH;
    return '[' . join(',', map { _text($_, $depth + 1) } @$v) . ']' if $type eq 'ARRAY';
    return '{' . join(',', map { "$_=" . _text($v->{$_}, $depth + 1) } sort keys %$v) . '}' if $type eq 'HASH';
    return '\\' . _text($$v, $depth + 1) if $type eq 'SCALAR' || $type eq 'REF';
    return $type;    # (objects, code, handles: only their class)
}

1;
__END__

=head1 NAME

Kamado::CGI::Auto::Net - auto mode's run-time net: a script whose run leaves state is demoted

=head1 SYNOPSIS

    my $before = Kamado::CGI::Auto::Net->before($entry);
    ... the in-process run ...
    Kamado::CGI::Auto::Net->after($entry, $before);

=cut
