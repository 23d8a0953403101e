package Kamado::LogKeeper;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Socket qw(AF_UNIX SOCK_STREAM PF_UNSPEC);
use Time::HiRes ();
use Kamado;
use Kamado::LogFile;

# Started as root with --user and log files: a process that keeps root
# for one job, making the log files anew on USR1 (after logrotate moved
# them away) in a directory --user cannot write, each given to --user,
# so that every process can then reopen its own copy by path. It opens
# only the paths it was started with, as Kamado::LogFile allows, and
# answers only the supervisor, on a socket pair.

# start(paths => [PATH...], owner => [uid, gid]): forks it, before the
# privileges are dropped.
sub start {
    my ($class, %arg) = @_;
    socketpair(my $mine, my $its, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or die "kamado: can't create a socket pair: $!\n";
    my $parent = $$;
    my $pid = fork // die "kamado: can't fork the log keeper: $!\n";
    if ($pid) {
        close $its;
        return bless { pid => $pid, fh => $mine }, $class;
    }
    close $mine;
    # (the listeners are not its business, nor the log: it writes nothing,
    # and must not hold a file logrotate moved away)
    if (open my $null, '+<', '/dev/null') {
        POSIX::dup2(fileno $null, $_) for 0 .. 2;
    }
    opendir my $fds, '/proc/self/fd';
    POSIX::close($_) for grep { /\A\d+\z/ && $_ > 2 && $_ != fileno $its } $fds ? readdir $fds : ();
    $0 = 'kamado log keeper';
    # signals meant for the server's processes are not its own; it ends
    # with the supervisor (its socket's end, or the parent death signal)
    $SIG{$_} = 'IGNORE' for qw(HUP USR1 USR2 TTIN TTOU PIPE);
    Kamado::set_parent_death_signal(POSIX::SIGTERM());
    POSIX::_exit(0) if getppid != $parent;
    while (defined(my $line = readline $its)) {
        next unless $line eq "reopen\n";
        my @errors;
        for my $path ($arg{paths}->@*) {
            my ($fh, $why) = Kamado::LogFile->open_append($path, owner => $arg{owner});
            push @errors, "$path: $why" unless $fh;
        }
        syswrite $its, join '', map({ "error $_\n" =~ s/\n(?!\z)/ /gr } @errors), "done\n";
    }
    POSIX::_exit(0);
}

# Asks it to make the files that are missing; returns the errors (one
# line each), after at most $timeout seconds (default 5).
sub prepare {
    my ($self, $timeout) = @_;
    my $fh = $self->{fh} or return;
    syswrite $fh, "reopen\n" or return "the log keeper is gone: $!";
    my ($got, $deadline) = ('', Time::HiRes::time() + ($timeout // 5));
    while ($got !~ /^done$/m) {
        my $left = $deadline - Time::HiRes::time();
        vec(my $rin = '', fileno $fh, 1) = 1;
        return 'the log keeper did not answer' if $left <= 0;
        select $rin, undef, undef, $left or next;
        sysread $fh, $got, 4096, length $got or return 'the log keeper is gone';
    }
    return $got =~ /^error (.*)$/mg;
}

# In a child of the supervisor: not its business.
sub close_inherited { close delete $_[0]{fh} if $_[0]{fh} }

# Closes the socket (the keeper exits) and reaps it.
sub stop {
    my ($self) = @_;
    $self->close_inherited;
    waitpid $self->{pid}, 0 if $self->{pid};
    delete $self->{pid};
}

sub pid { $_[0]{pid} }

1;
__END__

=head1 NAME

Kamado::LogKeeper - a process that keeps root to make the log files anew
on USR1

=head1 SYNOPSIS

    my $keeper = Kamado::LogKeeper->start(paths => [$error_log, $access_log], owner => [$uid, $gid]);
    Kamado::Privileges->drop($ids);
    ...
    # USR1, in the supervisor, before every process reopens by path
    Kamado::Log->error("USR1: $_") for $keeper->prepare;

=head1 DESCRIPTION

Started as root with B<--user> and an B<--error-log> or B<--access-log>
file, kamado forks C<kamado log keeper> before it drops its privileges.
On USR1 the supervisor asks it to open each log path as
L<Kamado::LogFile> does (no symbolic link, a regular file with one name
owned by root or the B<--user>): a path logrotate moved away is created,
owned by the B<--user> and its group. Then the supervisor, the
generations and the workers, all unprivileged, reopen it by path, so
the log directory need not (and must not) be writable by B<--user>.

It holds nothing of the app: it is forked before the app or any B<-M>
module is loaded, does nothing but that open, and exits when the
supervisor closes its socket or dies.

=cut
