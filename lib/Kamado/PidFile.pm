package Kamado::PidFile;
use 5.024;
use strict;
use warnings;

use Fcntl qw(O_WRONLY O_CREAT O_EXCL);
use File::Basename ();
use Kamado::Log;

# --pid-file FILE: the supervisor's pid, for init scripts, logrotate and
# monitoring. Written by the process that stays the supervisor, before
# --user takes effect (as nginx and Apache do), so it may go where only
# root writes, such as /run.

# Writes $$ to $path (a temporary file renamed over it, so a reader never
# sees it half written); dies with one line when a live kamado holds it.
# The object removes the file when it goes out of scope in this process.
sub create {
    my ($class, $path) = @_;
    if (defined(my $pid = $class->holder($path))) {
        die "kamado: --pid-file $path: kamado is already running as pid $pid\n";
    }
    my $dir = File::Basename::dirname($path);
    my ($tmp, $fh);
    for my $try (1 .. 10) {
        $tmp = sprintf '%s/.%s.%d.%06d', $dir, File::Basename::basename($path), $$, int rand 1e6;
        last if sysopen $fh, $tmp, O_WRONLY | O_CREAT | O_EXCL, 0644;
        die "kamado: --pid-file $path: can't create a file in $dir: $!\n" unless $!{EEXIST};
    }
    $fh or die "kamado: --pid-file $path: can't create a file in $dir\n";
    # 0644 whatever the umask: monitoring reads it as another user
    chmod 0644, $tmp;
    my $ok = print $fh "$$\n";
    $ok = close($fh) && $ok;
    if (!$ok || !rename $tmp, $path) {
        my $err = $!;
        unlink $tmp;
        die "kamado: --pid-file $path: can't write it: $err\n";
    }
    return bless { path => $path, pid => $$ }, $class;
}

# The pid of the live kamado the file names, or undef: no file, not a
# pid, our own pid (a container restarted with the same pids), or a
# process that is gone or is not kamado (its pid reused since it died).
sub holder {
    my ($class, $path) = @_;
    open my $fh, '<', $path or return undef;
    my ($pid) = (scalar(<$fh>) // '') =~ /\A\s*([0-9]+)\s*\z/ or return undef;
    return undef if $pid == $$ || $pid < 1;
    return undef unless kill(0, $pid) || $!{EPERM};
    if (open my $cmd, '<', "/proc/$pid/cmdline") {
        local $/;
        my $cmdline = <$cmd> // '';
        return undef if $cmdline ne '' && $cmdline !~ /kamado/i;
    }
    return $pid;
}

sub path { $_[0]{path} }

# Removes the file if it still holds this process's pid (another server
# may have taken the path over since).
sub remove {
    my ($self) = @_;
    return if $self->{removed}++ || $$ != $self->{pid};
    open my $fh, '<', $self->{path} or return;
    my $pid = <$fh> // '';
    close $fh;
    return unless $pid =~ /\A\s*([0-9]+)\s*\z/ && $1 == $$;
    unlink $self->{path}
        or Kamado::Log->warn("can't remove --pid-file $self->{path}: $!");
}

sub DESTROY { local ($., $@, $!, $^E, $?); $_[0]->remove }

1;
__END__

=head1 NAME

Kamado::PidFile - C<--pid-file>: the supervisor's pid, written at start,
removed at exit

=head1 SYNOPSIS

    my $pid_file = Kamado::PidFile->create('/run/kamado.pid');
    ...                           # serve
    $pid_file->remove;            # or let it go out of scope

=head1 DESCRIPTION

C<create> refuses (dies with one line naming the file and the pid) when
the file names a live kamado process; a file left by one that died, or
whose pid now belongs to a process that is not kamado, is replaced. The
file is written to a temporary name in the same directory, mode 0644,
and renamed into place. C<remove> deletes it only when it still holds
this process's pid, and only in the process that created it (never in a
forked child).

=cut
