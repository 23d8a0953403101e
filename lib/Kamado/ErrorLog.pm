package Kamado::ErrorLog;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Kamado::Log;
use Kamado::LogFile;

# --error-log FILE: the file every process's STDERR (fd 2) is appended to,
# so the supervisor's and generations' logs, the workers' and the app's
# own warnings all land in it. USR1 reopens it (after logrotate has moved it away); each process
# reopens its own fd 2, as each holds its own copy of the descriptor.

my ($path, $owner);

# --error-log: syslog or syslog:FACILITY (Kamado::Log), else a file
# (owner: [uid, gid] of the --user, given a file created here).
sub open_log {
    my ($class, $spec, %opt) = @_;
    if ($spec =~ /\Asyslog(?::(.*))?\z/s) {
        Kamado::Log->to_syslog($1 // 'daemon');
        return 1;
    }
    return $class->open_file($spec, %opt);
}

# Points fd 2 at FILE, opened as Kamado::LogFile allows; dies naming it
# when it cannot be opened or is refused.
sub open_file {
    my ($class, $file, %opt) = @_;
    ($path, $owner) = ($file, $opt{owner});
    my $why = _point_stderr();
    die "kamado: can't open --error-log $file: $why\n" if $why;
    return 1;
}

sub path { $path }

# USR1: a no-op without --error-log. On failure the old file stays in use
# and the failure is logged there.
sub reopen {
    return 1 unless defined $path;
    my $why = _point_stderr() or return 1;
    Kamado::Log->error("USR1: can't reopen $path: $why; still logging to the old file");
    return 0;
}

# Returns why it failed, or '' when fd 2 is the file.
sub _point_stderr {
    # opened apart, then put in place, so a failure leaves fd 2 as it was
    my ($new, $why) = Kamado::LogFile->open_append($path, owner => $owner);
    return $why unless $new;
    POSIX::dup2(fileno $new, 2) // return "$!";
    STDERR->autoflush(1);
    Kamado::Log->stderr_changed;
    return '';
}

1;
__END__

=head1 NAME

Kamado::ErrorLog - C<--error-log>, reopened on USR1

=head1 DESCRIPTION

C<--error-log FILE> points every process's STDERR (fd 2) at I<FILE>, so
Kamado's own lines (L<Kamado::Log>) and what the app writes to STDERR
land in it; USR1 reopens it in each process. C<--error-log syslog> or
C<syslog:FACILITY> sends Kamado's lines to syslog instead and leaves
STDERR alone.

=cut
