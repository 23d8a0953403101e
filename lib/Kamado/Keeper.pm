package Kamado::Keeper;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Socket qw(AF_UNIX SOCK_STREAM PF_UNSPEC);
use Time::HiRes ();
use Kamado::LogFile;

# Started as root with --user, and log files or a pid file: a process
# that keeps root for the files root owns, so their directories need
# not (and must not) be writable by --user. On USR1 it makes the log
# files logrotate moved away anew, each given to --user, so that every
# process can then reopen its own copy by path; at the end it removes
# the pid file. It opens only the paths it was started with, as
# Kamado::LogFile allows, and answers only the supervisor, on a socket
# pair.

# start(logs => [PATH...], owner => [uid, gid], pid_file =>
# Kamado::PidFile or undef): forks it, before the privileges are dropped.
sub start {
    my ($class, %arg) = @_;
    socketpair(my $mine, my $its, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or die "kamado: can't create a socket pair: $!\n";
    my $pid = fork // die "kamado: can't fork the keeper: $!\n";
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
    $0 = 'kamado keeper';
    # signals are the server's processes', not its own: it ends when the
    # supervisor does (its end of the socket closes, however it ends)
    $SIG{$_} = 'IGNORE' for qw(HUP USR1 USR2 TTIN TTOU PIPE TERM INT QUIT);
    while (defined(my $line = readline $its)) {
        next unless $line eq "reopen\n";
        my @errors;
        for my $path (($arg{logs} // [])->@*) {
            my ($fh, $why) = Kamado::LogFile->open_append($path, owner => $arg{owner});
            push @errors, "$path: $why" unless $fh;
        }
        syswrite $its, join '', map({ "error $_\n" =~ s/\n(?!\z)/ /gr } @errors), "done\n";
    }
    $arg{pid_file}->remove('keeper') if $arg{pid_file};
    POSIX::_exit(0);
}

# Asks it to make the files that are missing; returns the errors (one
# line each), after at most $timeout seconds (default 5).
sub prepare {
    my ($self, $timeout) = @_;
    my $fh = $self->{fh} or return;
    syswrite $fh, "reopen\n" or return "the keeper is gone: $!";
    my ($got, $deadline) = ('', Time::HiRes::time() + ($timeout // 5));
    while ($got !~ /^done$/m) {
        my $left = $deadline - Time::HiRes::time();
        vec(my $rin = '', fileno $fh, 1) = 1;
        return 'the keeper did not answer' if $left <= 0;
        select $rin, undef, undef, $left or next;
        sysread $fh, $got, 4096, length $got or return 'the keeper is gone';
    }
    return $got =~ /^error (.*)$/mg;
}

# In a child of the supervisor: not its business.
sub close_inherited { close delete $_[0]{fh} if $_[0]{fh} }

# Closes the socket (the keeper removes the pid file and exits) and
# reaps it.
sub stop {
    my ($self) = @_;
    $self->close_inherited;
    my $pid = delete $self->{pid} or return;
    # (a child of the supervisor that still holds the socket delays it)
    my $deadline = Time::HiRes::time() + 5;
    Time::HiRes::sleep(0.01) until waitpid($pid, POSIX::WNOHANG()) || Time::HiRes::time() > $deadline;
}

sub pid { $_[0]{pid} }

1;
__END__

=head1 NAME

Kamado::Keeper - a process that keeps root for the files root owns: the
logs made anew on USR1, the pid file removed at the end

=head1 SYNOPSIS

    my $keeper = Kamado::Keeper->start(logs => [$error_log, $access_log],
        owner => [$uid, $gid], pid_file => $pid_file);
    Kamado::Privileges->drop($ids);
    ...
    # USR1, in the supervisor, before every process reopens by path
    Kamado::Log->error("USR1: $_") for $keeper->prepare;
    ...
    $keeper->stop;    # the pid file goes

=head1 DESCRIPTION

Started as root with B<--user> and an B<--error-log> or B<--access-log>
file or a B<--pid-file>, kamado forks C<kamado keeper> before it drops
its privileges. On USR1 the supervisor asks it to open each log path
as L<Kamado::LogFile> does (no symbolic link, a regular file with one
name owned by root or the B<--user>): a path logrotate moved away is
created, owned by the B<--user> and its group. Then the supervisor, the
generations and the workers, all unprivileged, reopen it by path. When
the supervisor ends (its end of the socket closes, whether it exits or
is killed), the keeper removes the pid file if it still holds the
supervisor's pid (L<Kamado::PidFile>), and exits. So the directories of
these files need not, and must not, be writable by B<--user>.

It holds nothing of the app and no descriptor but its socket and
F</dev/null>: it is forked before the app or any B<-M> module is loaded,
closes the listeners, ignores signals, and does nothing but those
opens and that removal.

=cut
