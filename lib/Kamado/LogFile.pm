package Kamado::LogFile;
use 5.024;
use strict;
use warnings;

use Fcntl qw(O_WRONLY O_APPEND O_CREAT O_EXCL O_NOFOLLOW O_NONBLOCK F_GETFL F_SETFL S_ISREG S_ISCHR S_ISLNK);
use File::Basename ();

# Opens --error-log and --access-log for appending in a way root may:
# root opens them before --user takes effect, in a directory another
# user may be able to write, and a file planted there must not make root
# write into a file of its choice (nginx's CVE-2016-1247).

# open_append(PATH, owner => [UID, GID]) -> (handle) or (undef, why).
# A file it creates is given to OWNER (the --user) when given. It refuses
# a symbolic link (O_NOFOLLOW), a regular file with more than one name (a
# hard link to another file) or owned by anyone but root, this process's
# user or OWNER, and anything but a regular file or a character device of
# root's (/dev/null); a FIFO is not waited on (O_NONBLOCK). Except for a
# link root made in a directory only root writes (/dev/stdout): nobody
# else could have put it there, so it is followed, to whatever it leads.
sub open_append {
    my ($class, $path, %opt) = @_;
    my ($uid, $gid) = ($opt{owner} // [])->@*;
    my %owners = map { ($_ => 1) } 0, $>, $uid // ();
    my @link = lstat $path;
    my $roots = @link && S_ISLNK($link[2]) && $link[4] == 0 && _roots_only(File::Basename::dirname($path));
    my $flags = O_WRONLY | O_APPEND | O_NONBLOCK | ($roots ? 0 : O_NOFOLLOW);
    my ($fh, $created);
    for (1 .. 2) {
        # created here, or opened as it is: a file removed in between is
        # created on the second turn
        last if $created = sysopen $fh, $path, $flags | O_CREAT | O_EXCL, 0644;
        return (undef, _why($path)) unless $!{EEXIST};
        last if sysopen $fh, $path, $flags;
        return (undef, _why($path)) unless $!{ENOENT};
    }
    return (undef, "$!") unless $fh;
    my @st = stat $fh or return (undef, "can't stat it: $!");
    my ($mode, $nlink, $owner) = @st[2, 3, 4];
    if ($roots) {
        # (root's own choice: a pipe, a terminal, a file)
    } elsif (S_ISREG($mode)) {
        return (undef, "it has $nlink names (a hard link); refused") if $nlink != 1;
        return (undef, 'it belongs to ' . (getpwuid($owner) // "uid $owner") . ', not to root'
            . (defined $uid ? ' or the --user' : '') . '; refused') unless $owners{$owner};
    } elsif (!S_ISCHR($mode) || $owner != 0) {
        return (undef, 'not a regular file; refused');
    }
    if ($created && defined $uid && $> == 0) {
        # the --user reopens it on USR1
        chown $uid, $gid // -1, $fh or return (undef, "can't give it to uid $uid: $!");
    }
    my $fl = fcntl $fh, F_GETFL, 0;
    fcntl $fh, F_SETFL, $fl & ~O_NONBLOCK if $fl;
    return ($fh);
}

# Whether DIR is root's and no one else may write in it.
sub _roots_only {
    my ($dir) = @_;
    my @st = stat $dir or return 0;
    return $st[4] == 0 && !($st[2] & 0022);
}

sub _why {
    my ($path) = @_;
    return 'it is a symbolic link; refused' if $!{ELOOP} && -l $path;
    return 'a FIFO with no reader; refused' if $!{ENXIO};
    return "$!";
}

1;
__END__

=head1 NAME

Kamado::LogFile - opens a log file for appending, refusing what a user
could have planted

=head1 SYNOPSIS

    my ($fh, $why) = Kamado::LogFile->open_append('/var/log/kamado/error.log', owner => [$uid, $gid]);
    die "kamado: can't open --error-log ...: $why\n" unless $fh;

=head1 DESCRIPTION

Kamado opens B<--error-log> and B<--access-log> as root, before
B<--user> takes effect. C<open_append> opens the path with C<O_NOFOLLOW>
(a symbolic link is refused, as a link to F</etc/cron.d/x> would have
had root append the app's output there) and C<O_NONBLOCK> (a FIFO
without a reader is refused rather than waited on), then looks at what
it opened (C<fstat>): a regular file with one name, owned by root, by
the process's user or by C<owner>'s uid; or a character device owned by
root, such as F</dev/null>. Anything else is closed and refused, with
why. A file it creates gets C<owner> (the B<--user> and its group), so
that the unprivileged processes can open it again on USR1 without
being able to write the directory (L<Kamado::Keeper> creates it
then).

A symbolic link that root owns, in a directory root owns and no one
else may write (F</dev/stdout>, F</dev/stderr>), is followed, and what it
leads to is taken as it is: no one but root could have put it there.

Only the last part of the path is checked: the directories above it
must not be writable by B<--user>.

=cut
