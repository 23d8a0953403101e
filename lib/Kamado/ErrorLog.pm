package Kamado::ErrorLog;
use 5.024;
use strict;
use warnings;

use POSIX ();

# --error-log FILE: the file every process's STDERR (fd 2) is appended to,
# so the supervisor's and generations' logs, the workers' and the app's
# own warnings all land in it. USR1 reopens it (after logrotate has moved it away); each process
# reopens its own fd 2, as each holds its own copy of the descriptor.

my $path;

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
    print STDERR "[kamado] [$$] USR1: can't reopen $path: $!; still logging to the old file\n";
    return 0;
}

sub _point_stderr {
    # opened apart, then put in place, so a failure leaves fd 2 as it was
    open my $new, '>>', $path or return 0;
    POSIX::dup2(fileno $new, 2) // return 0;
    STDERR->autoflush(1);
    return 1;
}

1;
__END__

=head1 NAME

Kamado::ErrorLog - C<--error-log>, reopened on USR1

=cut
