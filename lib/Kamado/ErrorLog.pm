package Kamado::ErrorLog;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Kamado::Log;

# --error-log FILE: the file every process's STDERR (fd 2) is appended to,
# so the supervisor's and generations' logs, the workers' and the app's
# own warnings all land in it. USR1 reopens it (after logrotate has moved it away); each process
# reopens its own fd 2, as each holds its own copy of the descriptor.

my $path;

# --error-log: syslog or syslog:FACILITY (Kamado::Log), else a file.
sub open_log {
    my ($class, $spec) = @_;
    if ($spec =~ /\Asyslog(?::(.*))?\z/s) {
        Kamado::Log->to_syslog($1 // 'daemon');
        return 1;
    }
    return $class->open_file($spec);
}

# Points fd 2 at FILE; dies naming it when it cannot be opened.
sub open_file {
    my ($class, $file) = @_;
    $path = $file;
    _point_stderr() or die "kamado: can't open --error-log $file: $!\n";
    return 1;
}

sub path { $path }

# USR1: a no-op without --error-log. On failure the old file stays in use
# and the failure is logged there.
sub reopen {
    return 1 unless defined $path;
    return 1 if _point_stderr();
    Kamado::Log->error("USR1: can't reopen $path: $!; still logging to the old file");
    return 0;
}

sub _point_stderr {
    # opened apart, then put in place, so a failure leaves fd 2 as it was
    open my $new, '>>', $path or return 0;
    POSIX::dup2(fileno $new, 2) // return 0;
    STDERR->autoflush(1);
    Kamado::Log->stderr_changed;
    return 1;
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
