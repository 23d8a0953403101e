package Kamado::CGI::Mode;
use 5.024;
use strict;
use warnings;

use Kamado::CGI::Source;
# (the modes with a process of their own, loaded now: compiled after the
# in-process modes' override of exec, their `exec {PROGRAM} LIST` would
# not parse)
use Kamado::CGI::Mode::Exec;
use Kamado::CGI::Mode::Fork;

# The one place that decides how a script runs: the mode asked for (the
# nearest .kamado-cgi file's, Kamado::CGI::ModeFile, else the server's
# --cgi-mode; auto: kamado check's verdict, Kamado::CGI::Auto), then what the script's first line allows: another
# interpreter (#!/bin/sh) or a program runs in exec mode; a perl script
# with a #! switch other than -w and -l (-T, -C...) cannot run inside the
# worker (taint cannot be turned on in a running perl) and runs in fork
# mode. Decided once per mapping of a URL to the script (Kamado::CGI
# keeps it, and maps again when the script changes).

our @NAMES = qw(auto fork exec registry perlrun);
my %MODULE = (exec => 'Kamado::CGI::Mode::Exec', fork => 'Kamado::CGI::Mode::Fork',
    registry => 'Kamado::CGI::Mode::Registry', perlrun => 'Kamado::CGI::Mode::PerlRun');
my %IN_PROCESS = (registry => 1, perlrun => 1);

# for(FILE, default => mode, mode_files => Kamado::CGI::ModeFile) -> (the
# module of the mode FILE runs in: its response(SCRIPT, ENV) answers a
# request, undef, why: { reason, files => { path => key } that decided
# it, for auto }) or (undef, error) when a .kamado-cgi file that governs
# it cannot be used. Mode auto is kamado check's verdict for the script
# (Kamado::CGI::Auto). The module is loaded when it is first chosen: the in-process
# modes' overrides of perl's built-ins (Kamado::CGI::InProcess::Run) are
# installed only in a worker that uses them.
sub for {
    my ($class, $file, %a) = @_;
    my ($dir, $base) = $file =~ m{\A(.*)/([^/]+)\z};
    my ($mode, $error) = $a{mode_files} ? $a{mode_files}->mode_for($dir, $base) : ();
    return (undef, $error) if $error;
    my $why = { reason => defined $mode ? 'set by a .kamado-cgi file' : "--cgi-mode $a{default}" };
    $mode //= $a{default};
    if ($mode eq 'auto') {
        require Kamado::CGI::Auto;
        my $v = Kamado::CGI::Auto->verdict($file);
        ($mode, $why) = ($v->{mode}, { reason => $v->{reason}, files => $v->{files}, auto => $v });
    }
    if ($mode ne 'exec' && open my $fh, '<', $file) {
        my ($perl, @switches) = Kamado::CGI::Source::shebang(scalar(<$fh>) // '');
        my $was = $mode;
        $mode = !$perl ? 'exec' : $IN_PROCESS{$mode} && grep({ !/\A-[wl]+\z/ } @switches) ? 'fork' : $mode;
        $why = { %$why, reason => $mode eq 'exec' ? 'not a perl script' : "#! switches @switches" } if $mode ne $was;
    }
    return (module($mode), undef, $why);
}

# module(NAME) -> the module of the mode NAME, loaded.
sub module {
    my ($name) = @_;
    $name = 'registry' if $name eq 'auto';    # (the in-process modes' overrides, loaded early)
    my $module = $MODULE{$name} // die "Kamado::CGI: unknown mode '$name' (known: @NAMES)\n";
    (my $pm = "$module.pm") =~ s{::}{/}g;
    require $pm;
    return $module;
}

# Whether the mode NAME runs scripts inside the worker.
# (auto: it may choose one)
sub in_process { $IN_PROCESS{ $_[1] } || $_[1] eq 'auto' ? 1 : 0 }

1;
__END__

=head1 NAME

Kamado::CGI::Mode - chooses the mode a CGI script runs in

=head1 SYNOPSIS

    my ($mode, $error) = Kamado::CGI::Mode->for($file, default => 'fork', mode_files => $mode_files);
    my $response = $mode->response($script, $env);

=head1 DESCRIPTION

Modes: L<Kamado::CGI::Mode::Fork>, L<Kamado::CGI::Mode::Exec>,
L<Kamado::CGI::Mode::Registry>, L<Kamado::CGI::Mode::PerlRun>; each has
C<response($script, $env)> returning a PSGI response.

=cut
