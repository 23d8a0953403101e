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
# sees it half written); dies with one line when a live kamado holds it,
# or, given the --user's ids (Kamado::Privileges) as root, when that user
# could write the directory. The object removes the file when it goes
# out of scope in this process (unless handed over).
sub create {
    my ($class, $path, $ids) = @_;
    if (defined(my $pid = $class->holder($path))) {
        die "kamado: --pid-file $path: kamado is already running as pid $pid\n";
    }
    my $dir = File::Basename::dirname($path);
    if ($ids && defined $ids->{uid} && $ids->{uid} != 0 && $> == 0 && writable_by($dir, $ids)) {
        # root signals the pid in it (logrotate's postrotate, an init script)
        die "kamado: --pid-file $path: --user $ids->{user} can write $dir, and so put any pid there"
            . " for root to signal; give it a directory only root writes (such as /run)\n";
    }
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

# Whether the user of $ids ({uid, groups}) may create or replace files
# in $dir: its owner with u+w, one of its groups with g+w, or anyone
# with o+w (sticky or not: a name removed at exit may be taken).
sub writable_by {
    my ($dir, $ids) = @_;
    my @st = stat $dir or return 0;
    my $mode = $st[2];
    return 1 if $mode & 0002;
    return 1 if $st[4] == $ids->{uid} && $mode & 0200;
    return 1 if $mode & 0020 && grep { $_ == $st[5] } ($ids->{groups} // [])->@*;
    return 0;
}

sub path { $_[0]{path} }

# Another process (Kamado::Keeper, which kept root) removes the file: in
# this one, remove does nothing from now on.
sub hand_over { $_[0]{handed_over} = 1 }

# Removes the file if it still holds the pid of the process that
# created it (another server may have taken the path over since): in
# that process, or in the keeper it was handed over to ($by 'keeper').
sub remove {
    my ($self, $by) = @_;
    my $keeper = ($by // '') eq 'keeper';
    return if $self->{removed}++ || (!$keeper && ($$ != $self->{pid} || $self->{handed_over}));
    open my $fh, '<', $self->{path} or return;
    my $pid = <$fh> // '';
    close $fh;
    return unless $pid =~ /\A\s*([0-9]+)\s*\z/ && $1 == $self->{pid};
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
the file names a live kamado process, and, started as root and given
the B<--user>'s ids, when that user could write the file's directory
(root signals the pid it reads there); a file left by one that died, or
whose pid now belongs to a process that is not kamado, is replaced. The
file is written to a temporary name in the same directory, mode 0644,
and renamed into place. C<remove> deletes it only when it still holds
this process's pid, and only in the process that created it (never in a
forked child), or, once C<hand_over> was called, only in the
L<Kamado::Keeper> it was handed to (C<remove('keeper')>, in that forked
child), which is root and can remove it from a directory B<--user>
cannot write.

=cut
