package Kamado::Reload;
use 5.024;
use strict;
use warnings;

use Cwd ();
use POSIX ();
use Kamado::Log;
use Kamado::Process;

# --reload: a small process that watches directories with
# Filesys::Notify::Simple (inotify through Linux::Inotify2 where it is
# installed, else a scan every 2 s) and writes the paths that changed,
# one per line, on a pipe the supervisor reads. The supervisor decides
# what a change means (see Kamado::Supervisor): the watcher only watches,
# so a blocking wait never holds up the supervisor's loop.

# Changes to these are not the app's code: editors' temporary and backup
# files, version control, and logs.
# (vim probes whether it may write a directory with a file named 4913,
# or a number above it)
my $IGNORE = qr{(?:^|/)\.(?:git|svn|hg)(?:/|\z)|\.(?:bak|swp|swpx|swx|swo|tmp|log)\z|~\z|_flymake\.p[lm]\z|(?:^|/)\.?#[^/]*\z};

sub ignored {
    my ($path) = @_;
    return $path =~ $IGNORE || ($path =~ m{(?:^|/)([0-9]{4})\z} && $1 >= 4913 && $1 <= 5036);
}

# start(dirs => [...], ignore => [files]): forks the watcher; returns the
# object the supervisor polls, or dies naming what is wrong.
sub start {
    my ($class, %arg) = @_;
    require Filesys::Notify::Simple;
    # (a path inside another one is watched with it)
    my @dirs;
    for my $path (sort { length $a <=> length $b } map { Cwd::abs_path($_) // $_ } $arg{dirs}->@*) {
        push @dirs, $path unless grep { $path eq $_ || index($path, "$_/") == 0 } @dirs;
    }
    my %ignore = map { ((Cwd::abs_path($_) // $_) => 1) } grep { defined } ($arg{ignore} // [])->@*;
    pipe(my $r, my $w) or die "kamado: --reload: can't create a pipe: $!\n";
    my ($pid, $mask) = Kamado::Process::fork_signals_blocked();
    die "kamado: --reload: can't fork the watcher: $!\n" unless defined $pid;
    if ($pid) {
        close $w;
        return bless { pid => $pid, pipe => $r, dirs => \@dirs, said => '' }, $class;
    }
    close $r;
    my $parent = getppid;
    $0 = "kamado reload watcher";
    $SIG{$_} = 'DEFAULT' for qw(TERM QUIT INT);
    $SIG{$_} = 'IGNORE' for qw(HUP TTIN TTOU USR1 PIPE);
    Kamado::Process::started($parent, $mask);
    Kamado::Log->set_role('watcher');
    my $notify = Filesys::Notify::Simple->new(\@dirs);
    # watch from now on, so that a change made once "watching" is logged
    # is seen (else the watches are set by the first wait)
    $notify->{watcher} //= $notify->{watcher_cb}->(@dirs) if ref $notify->{watcher_cb} eq 'CODE';
    syswrite $w, "watching\n";
    while (1) {
        $notify->wait(sub {
            for my $path (map { $_->{path} } @_) {
                next if $ignore{$path} || ignored($path);
                syswrite $w, "$path\n" or POSIX::_exit(0);
            }
        });
        POSIX::_exit(0) if getppid != $parent;
    }
}

sub pid  { $_[0]{pid} }
sub fh   { $_[0]{pipe} }
sub dirs { $_[0]{dirs}->@* }

# True once the watches are set.
sub watching {
    my ($self) = @_;
    $self->_read;
    return $self->{watching};
}

# The paths reported changed since the last call (each once).
sub changed {
    my ($self) = @_;
    $self->_read;
    my %seen;
    my @paths = grep { !$seen{$_}++ } split /\n/, $self->{said};
    $self->{said} = '';
    return @paths;
}

sub _read {
    my ($self) = @_;
    $self->{said} .= Kamado::Process::read_waiting($self->{pipe});
    $self->{watching} = 1 if $self->{said} =~ s/^watching\n//m;
}

sub stop {
    my ($self) = @_;
    kill TERM => $self->{pid};
    waitpid $self->{pid}, 0;
}

1;
__END__

=head1 NAME

Kamado::Reload - C<--reload>: the process that watches the app's files

=head1 DESCRIPTION

C<< Kamado::Reload->start(dirs => [...], ignore => [...]) >> forks a
process, C<kamado reload watcher>, a child of the supervisor, that
reports every changed path under the directories on a pipe. Editors'
temporary and backup files (C<.swp>, C<~>, C<.#name>, vim's numbered
probe files), C<.git>, C<.svn> and C<.hg> directories, C<*.log> files and
the files named in C<ignore> (kamado's own log, pid and scoreboard files)
do not count. The supervisor reads C<changed> and reloads (see
L<Kamado::Supervisor>). A directory created after the start is not
watched (a limit of Filesys::Notify::Simple); a file in it is when the
directory is there at start.

=cut
