package Kamado::CGI::InProcess::Overrides;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Kamado ();    # (current_pid, in XS)
use Kamado::CGI::InProcess::Require;
use Kamado::CGI::InProcess::World;

# What the in-process modes (Kamado::CGI::InProcess::Run) put in place of perl's
# built-ins, for the code compiled after this module loads (a script, the
# modules it uses): require and do (Kamado::CGI::InProcess::Require), exit, caller
# and exec. Outside a script's run they are perl's own (t/cgi-runner/
# overrides.t). Loaded only by Run, so only in a worker that runs a
# script in one of those modes (Kamado::CGI::Mode).

# (set by Kamado::CGI::InProcess::Run for each run)
our $RUNNING;    # the worker's pid while a script runs in it
our $SCRIPT;     # that script
# what _exit dies with where it cannot leave by the runner's block, and
# the code it was given (undef: the script did not call exit)
our $EXIT = bless [], 'Kamado::CGI::InProcess::Overrides::Exit';
our $EXIT_CODE;

BEGIN {
    Kamado::CGI::InProcess::Require->install;
    no warnings 'once';
    *CORE::GLOBAL::exit = \&_exit;
    *CORE::GLOBAL::caller = \&_caller;
    *CORE::GLOBAL::exec = \&_exec;
}

# exec: under CGI the program replaces the script's process, and its
# output ends the response. In the worker that would replace the worker:
# the program runs in a child instead, and the script ends when it does,
# with its status. An exec that fails returns false with $! set, as
# perl's. (`exec {PROGRAM} LIST` cannot be overridden: it is perl's.)
sub _exec {
    return CORE::exec(@_) unless $RUNNING && Kamado::current_pid() == $RUNNING;
    Kamado::CGI::InProcess::World::flush_all();
    pipe(my $failed, my $started) or return 0;    # (closed by the exec: it started)
    my $pid = fork // return 0;
    if (!$pid) {
        close $failed;
        {
            no warnings 'exec';    # (said below, at the script's line)
            CORE::exec(@_);
        }
        syswrite $started, $! + 0;
        POSIX::_exit(127);
    }
    close $started;
    my $errno = do { local $/; <$failed> };
    waitpid $pid, 0;
    if (length $errno) {
        $! = $errno;
        my (undef, $file, $line) = CORE::caller;
        warn qq{Can't exec "$_[0]": $! at $file line $line.\n} if $^W || warnings::enabled('exec');
        return 0;
    }
    _exit($? & 127 ? 128 + ($? & 127) : $? >> 8);
}

# caller, as the script would see it under CGI (doc/CGI-HAZARDS.md B9): its top
# level is the main program, not a sub called by the worker, so no frame
# reaches past the script's wrapper (`main() unless caller` runs main).
# Code compiled before this (the worker's, Carp) keeps perl's own.
sub _caller (;$) {
    my $level = @_ ? $_[0] : 0;
    my @frame = CORE::caller($level + 1);
    if ($RUNNING && @frame) {
        my $wrapper = "$SCRIPT->{package}::__kamado_cgi_script";
        for my $up (1 .. $level + 1) {
            return if (CORE::caller($up))[3] eq $wrapper;
        }
    }
    return $frame[0] unless wantarray;
    return @_ ? @frame : @frame[0 .. 2];
}

sub _exit (;$) {
    my $code = @_ ? $_[0] : 0;
    CORE::exit($code) unless $RUNNING;
    child_exit($code) if Kamado::current_pid() != $RUNNING;
    $EXIT_CODE = $code;
    {
        # to the runner's block, past every eval and sub of the script
        no warnings 'exiting';
        eval { last KAMADO_CGI_SCRIPT };
    }
    # not on this stack (a signal or __DIE__ handler, a sort block): a die
    # that the script's own __DIE__ handler does not see
    local $SIG{__DIE__};
    die $EXIT;
}

# A child the script forked ends as a CGI process would (its END blocks,
# its buffers flushed), not by returning into the worker.
sub child_exit {
    my ($code) = @_;
    local $? = $code;
    eval { $_->() } for $SCRIPT->{end}->@*;
    STDOUT->flush;
    STDERR->flush;
    POSIX::_exit($?);
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::Overrides - perl's require, do, exit, caller and exec for scripts run in the worker

=cut
