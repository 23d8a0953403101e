package Kamado::Reload;
use 5.024;
use strict;
use warnings;

use Cwd ();
use File::Basename ();
use File::Find ();
use List::Util ();
use POSIX ();
use Time::HiRes ();
use Kamado::Log;
use Kamado::Process;

# --reload: a small process that watches directories with
# Filesys::Notify::Simple (inotify through Linux::Inotify2 where it is
# installed, else a scan every 2 s) and writes the paths that changed,
# one per line, on a pipe the supervisor reads. The supervisor decides
# what a change means (see Kamado::Supervisor): the watcher only watches,
# so a blocking wait never holds up the supervisor's loop. The changes
# settle here, in the supervisor: a reload once no change has come for
# SETTLE seconds (an editor's save, a git checkout: one reload).
use constant SETTLE => 0.3;

# Changes to these are not the app's code: editors' temporary and backup
# files, version control, and logs.
# (vim probes whether it may write a directory with a file named 4913,
# or a number above it)
my $IGNORE = qr{(?:^|/)\.(?:git|svn|hg)(?:/|\z)|\.(?:bak|swp|swpx|swx|swo|tmp|log)\z|~\z|_flymake\.p[lm]\z|(?:^|/)\.?#[^/]*\z};

sub ignored {
    my ($path) = @_;
    return $path =~ $IGNORE || ($path =~ m{(?:^|/)([0-9]{4})\z} && $1 >= 4913 && $1 <= 5036);
}

# The files kamado writes itself (FILE, and the temporary names it
# writes FILE under before renaming it into place: the scoreboard's
# FILE.XXXXXX, the pid file's .NAME.PID.NNNNNN), as one pattern of
# absolute paths; a file that does not exist yet is named by its
# directory's absolute path.
sub own_files {
    my (@files) = @_;
    my @res;
    for my $file (grep { defined } @files) {
        my $dir = Cwd::abs_path(File::Basename::dirname($file)) // next;
        my $name = File::Basename::basename($file);
        push @res, qr{\Q$dir/$name\E(?:\.[A-Za-z0-9]{6})?}, qr{\Q$dir/.$name.\E[0-9]+\.[0-9]{6}};
    }
    return @res ? do { my $any = join '|', @res; qr{\A(?:$any)\z} } : qr{(?!)};
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
    my $own = own_files(($arg{ignore} // [])->@*);
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
    # Filesys::Notify::Simple's scan follows symbolic links (File::Find's
    # follow_fast): a link to /usr would set a watch on each directory of
    # it. This one stays in the tree.
    no warnings 'redefine';
    *Filesys::Notify::Simple::_full_scan = \&_scan;
    my $notify = Filesys::Notify::Simple->new(\@dirs);
    # watch from now on, so that a change made once "watching" is logged
    # is seen (else the watches are set by the first wait)
    $notify->{watcher} //= $notify->{watcher_cb}->(@dirs) if ref $notify->{watcher_cb} eq 'CODE';
    syswrite $w, "watching\n";
    while (1) {
        $notify->wait(sub {
            for my $path (map { $_->{path} } @_) {
                next if $path =~ $own || ignored($path);
                syswrite $w, "$path\n" or POSIX::_exit(0);
            }
        });
        POSIX::_exit(0) if getppid != $parent;
    }
}

# What Filesys::Notify::Simple's _full_scan returns, for the trees under
# @paths without following a symbolic link: {directory => {path => stat}}.
sub _scan {
    my (@paths) = @_;
    my %map;
    for my $path (@paths) {
        my $root = Cwd::realpath($path) // next;
        File::Find::finddepth({
            no_chdir => 1,
            wanted   => sub {
                my $name = $File::Find::name;
                return if $name eq $root;
                my @st = lstat $name;
                $map{$File::Find::dir}{$name} = { path => $name, mtime => $st[9], size => $st[7], is_dir => -d _ };
            },
        }, $root);
        $map{$root} //= {};
    }
    return \%map;
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

# Waits until the watches are set, the watcher is gone, or $timeout
# seconds pass, and logs what it watches; returns the watcher.
sub wait_watching {
    my ($self, $timeout) = @_;
    vec(my $rin = '', fileno $self->{pipe}, 1) = 1;
    my $deadline = Time::HiRes::time() + $timeout;
    select my $rout = $rin, undef, undef, 0.1
        until $self->watching || !kill(0, $self->{pid}) || Time::HiRes::time() > $deadline;
    Kamado::Log->info('--reload: watching ' . join(', ', $self->dirs) . ' for changes');
    return $self;
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

# The files changed, sorted, once SETTLE seconds have passed since the
# last change and $hold (a generation still loading) is false; until
# then, empty: changes gather, and each pushes the time on.
sub settled {
    my ($self, $hold) = @_;
    if (my @changed = $self->changed) {
        $self->{gathered}{$_} = 1 for @changed;
        $self->{settle_at} = Time::HiRes::time() + SETTLE;
    }
    return () if $hold || !$self->{settle_at} || Time::HiRes::time() < $self->{settle_at};
    delete $self->{settle_at};
    return sort keys delete($self->{gathered})->%*;
}

# Seconds until the gathered changes settle (for the caller's select);
# undef when none wait.
sub settles_in {
    my ($self) = @_;
    return undef unless $self->{settle_at};
    return List::Util::max(0, $self->{settle_at} - Time::HiRes::time());
}

sub _read {
    my ($self) = @_;
    $self->{said} .= Kamado::Process::read_waiting($self->{pipe});
    $self->{watching} = 1 if $self->{said} =~ s/^watching\n//m;
}

# The supervisor reaped $pid: true (and logged) when it was the watcher.
sub reaped {
    my ($self, $pid, $status) = @_;
    return 0 unless $pid == $self->{pid};
    Kamado::Log->warn('the --reload watcher exited with ' . Kamado::Process::how($status) . '; changes are not watched any more');
    return 1;
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
the files named in C<ignore> (kamado's own log, pid and scoreboard files,
and the temporary names the scoreboard and the pid file are written
under before they are renamed into place) do not count. Symbolic links
are not followed: a directory reached through one is not watched. The supervisor waits for the watches with
C<wait_watching>, and asks C<settled> in its loop: the changed files,
once 0.3 s pass without another change (an editor's save, a git
checkout: one reload), and it reloads (see L<Kamado::Supervisor>). A directory created after the start is not
watched (a limit of Filesys::Notify::Simple); a file in it is when the
directory is there at start.

=cut
