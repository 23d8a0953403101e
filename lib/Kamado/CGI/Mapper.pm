package Kamado::CGI::Mapper;
use 5.024;
use strict;
use warnings;

use Cwd ();
use Fcntl qw(S_ISDIR S_ISLNK S_ISREG);

# URL path -> what to do with it, under Apache's two ways of running CGI:
#
# - scripts (ScriptAlias): every regular file under the root is a script;
#   nothing there is ever sent as content, whatever its name.
# - docroot (AddHandler cgi-script + Options ExecCGI): a file whose name
#   ends in a script extension (any case) is a script; other files are
#   sent as they are, unless they could be a script or its source under
#   another name (a script extension inside the name, a first line
#   starting with #!, an editor's or a deploy's leftover: name~, #name#,
#   .bak, .orig, .swp, .save, .old, .tmp, a trailing dot).
#
# A script must be executable, as Apache needs it to be (it execs the
# file): one that is not is a 500 and a log line naming it, never its
# bytes. It must also be something exec can run (a #! line or a
# program) or be named as a script (perl then runs it, as Kamado always
# has: many scripts have no #! line).

my $LEFTOVER = qr{(?:~|\.(?:bak|orig|rej|swp|swo|save|old|tmp|dist)|\.)\z|\A#.*#\z|,v\z}i;

# new(root => DIR (absolute, no links), scripts => 'all' or 'extension',
#     extensions => [cgi, pl], index => [names], follow => [DIR...]: where
#     else a link may lead, --cgi-follow-links)
sub new {
    my ($class, %args) = @_;
    my $scripts = $args{scripts} // 'all';
    $scripts eq 'all' || $scripts eq 'extension' or die "Kamado::CGI::Mapper: scripts is 'all' or 'extension'\n";
    my %ext = map { (lc $_ => 1) } ($args{extensions} // [qw(cgi pl)])->@*;
    my @follow = map { Cwd::realpath($_) // $_ } ($args{follow} // [])->@*;
    return bless {
        root => $args{root}, all => $scripts eq 'all', ext => \%ext, follow => \@follow,
        index => $args{index} // [qw(index.cgi index.pl index.html)]
    }, $class;
}

# resolve(PATH_INFO) -> one hash, by its action:
#   script: file, path_info, segments (URL segments of SCRIPT_NAME's
#           part), stat (of the file), cacheable (no link on the way),
#           dirs (the directories on the way), absent (index names tried
#           before the one chosen)
#   static: file, stat
#   slash:  a directory named without its trailing slash (a 301 to it)
#   deny:   status (403, 404, 500), log (why, for the error log; optional),
#           level (the log line's: error or warn)
sub resolve {
    my ($self, $path) = @_;
    $path //= '';
    # (no file name holds a NUL)
    return _deny(404) if $path =~ /\0/;
    my @segments = grep { length } split m{/}, $path;
    # dotfiles (.htaccess, .git) and . or .. in any place
    return _deny(403) if grep { /^\./ } @segments;
    my ($file, $info, $symlink, @stat) = $self->_walk(\@segments);
    return _deny(404) unless defined $file;
    # A slash at the end stays in PATH_INFO, as Apache keeps it (scripts
    # tell a directory URL by it); a run of slashes is one, as Apache's
    # MergeSlashes makes it.
    $info .= '/' if substr($path, -1) eq '/' && !S_ISDIR($stat[2]);
    my ($cacheable, @absent) = (!$symlink);
    if (S_ISDIR($stat[2])) {
        return { action => 'slash' } if $path !~ m{/\z};
        my $index;
        for my $name ($self->{index}->@*) {
            -f "$file/$name" ? ($index = $name, last) : push @absent, "$file/$name";
        }
        return _deny(403) unless defined $index;
        $file .= "/$index";
        @stat = stat $file;
        # (the index was not looked at with lstat: kept only if it is no link)
        my @lstat = lstat $file;
        $cacheable &&= @lstat && !S_ISLNK($lstat[2]) && "@lstat[0, 1]" eq "@stat[0, 1]";
        $symlink = 1;
        push @segments, $index;    # the index joins SCRIPT_NAME
        $info = '';
    }
    # A link is followed only to a file inside the root, or inside a
    # directory the administrator named (--cgi-follow-links: Debian's
    # backuppc links its index.cgi to /usr/lib/backuppc/cgi-bin): stricter
    # than Apache's FollowSymLinks, a link cannot publish what is elsewhere;
    # what it points to is judged by its own name too.
    my ($target, $into);
    if ($symlink) {
        $target = Cwd::realpath($file) // return _deny(404);
        if (index($target, "$self->{root}/") != 0) {
            ($into) = grep { index($target, "$_/") == 0 } $self->{follow}->@*;
            # (said in the log: an administrator who laid out a site so
            # needs to know why it is refused, and how to allow it)
            my $why = "$file: a symbolic link to $target, outside $self->{root}: not followed";
            return _deny(403, "$why (--cgi-follow-links names where links may lead)", 'warn') unless defined $into;
        }
    }
    my ($base) = $file =~ m{([^/]+)\z};
    my ($real) = defined $target ? $target =~ m{([^/]+)\z} : ($base);
    if ($self->{all} || $self->_script_name($base)) {
        return _deny(500, "$file: not executable by the server (as Apache, it is not run)")
            unless -x $file;
        # A file without #! is perl's only when its name says it is a script:
        # Apache's exec of it fails, and a data file made executable (a
        # chmod -R, an upload) must not run as code.
        return _deny(500, "$file: no #! line and no script extension (--cgi-ext): not run")
            unless $self->_script_name($base) || $self->_script_name($real) || _head($file) =~ /\A(?:#!|\x7fELF)/;
        my @dirs = map { join '/', $self->{root}, @segments[0 .. $_] } 0 .. $#segments - 1;
        # As suexec: what anyone may write, anyone may make run as the
        # server's user (where a link leads, from the named directory down).
        my @target_dirs = defined $target ? ($target =~ s{/[^/]+\z}{}r) : ();
        while (defined $into && length $target_dirs[0] > length $into) {
            unshift @target_dirs, $target_dirs[0] =~ s{/[^/]+\z}{}r;
        }
        for my $path ($self->{root}, @dirs, @target_dirs, $file) {
            my @st = stat $path or next;
            return _deny(500, "$file: not run: " . ($path eq $file ? 'it' : $path)
                . ' is writable by anyone (as suexec, such a script is refused)') if $st[2] & 0002;
        }
        return { action => 'script', file => $file, path_info => $info, segments => \@segments, stat => \@stat,
            cacheable => $cacheable, absent => \@absent, dirs => \@dirs };
    }
    # (no path info after a static file)
    return _deny(404) if length $info;
    for my $name ($base, $real) {
        return _deny(403, "$file: not sent: its name is a script's or a leftover's")
            if $name =~ $LEFTOVER || $self->_inner_script_name($name);
    }
    return _deny(403, "$file: not sent: it starts with #!") if _head($file) =~ /\A#!/;
    return { action => 'static', file => $file, stat => \@stat };
}

# Whether NAME ends in a script extension (any case).
sub _script_name {
    my ($self, $name) = @_;
    my ($ext) = $name =~ /\.([^.]+)\z/ or return 0;
    return $self->{ext}{ lc $ext } // 0;
}

# Whether any extension of NAME (x.cgi.txt, x.pl.html) is a script's: Apache's
# mod_mime gives a file the handler of every extension in its name.
sub _inner_script_name {
    my ($self, $name) = @_;
    my (undef, @ext) = split /\./, $name, -1;
    return scalar grep { $self->{ext}{ lc $_ } } @ext;
}

# The first bytes of FILE ('' when it cannot be read).
sub _head {
    my ($file) = @_;
    open my $fh, '<:raw', $file or return '';
    my $n = sysread $fh, my $head, 4;
    return $n ? $head : '';
}

# The longest leading run of segments naming something in the root: (the
# file or directory, the rest as PATH_INFO, whether a symbolic link was on
# the way, its stat), or () when the first missing segment is not after a
# file. (lstat: a path without links needs no realpath to stay inside.)
sub _walk {
    my ($self, $segments) = @_;
    my ($file, $symlink) = ($self->{root}, 0);
    for my $i (0 .. $#$segments) {
        my $next = "$file/$segments->[$i]";
        my @stat = lstat $next or return ();
        if (S_ISLNK($stat[2])) {
            $symlink = 1;
            @stat = stat $next or return ();
        }
        if (S_ISREG($stat[2])) {
            my $info = join '', map { "/$_" } @$segments[ $i + 1 .. $#$segments ];
            splice @$segments, $i + 1;
            return ($next, $info, $symlink, @stat);
        }
        return () unless S_ISDIR($stat[2]);
        $file = $next;
    }
    return ($file, '', $symlink, stat $file);
}

# (LEVEL: the log line's, error unless given)
sub _deny {
    my ($status, $log, $level) = @_;
    return { action => 'deny', status => $status, log => $log, level => $level };
}

1;
__END__

=head1 NAME

Kamado::CGI::Mapper - which file a CGI URL names, and whether it is run, sent or refused

=head1 SYNOPSIS

    my $mapper = Kamado::CGI::Mapper->new(root => '/srv/cgi-bin', scripts => 'all');
    my $r = $mapper->resolve('/app.cgi/extra/path');
    # { action => 'script', file => '/srv/cgi-bin/app.cgi', path_info => '/extra/path', ... }

=head1 DESCRIPTION

Maps a URL path (the part after the mount, already decoded) to a file in
C<root> as Apache does: the longest leading part of the path that names a
file is the script (C<SCRIPT_NAME>), the rest is C<PATH_INFO> (with its
trailing slash; slashes in a row count as one, as Apache's C<MergeSlashes
On>); a
directory is answered by its first index file (C<index>), and one named
without its slash is sent to it.

C<scripts =E<gt> 'all'> is Apache's C<ScriptAlias>: every regular file is
a script and nothing is ever sent as content. C<scripts =E<gt>
'extension'> is a document root with C<AddHandler cgi-script> and
C<Options ExecCGI>: names ending in one of C<extensions> (compared
without case) are scripts; other files are sent, except a file that has
a script extension anywhere in its name, starts with C<#!>, or looks like
an editor's or a deploy's leftover (C<~>, C<#name#>, C<.bak>, C<.orig>,
C<.rej>, C<.swp>, C<.swo>, C<.save>, C<.old>, C<.tmp>, C<.dist>, C<,v>,
a trailing dot): 403.

In both, a script that anyone may write, or that lies in a directory
anyone may write (the root, a directory on the way, or the directory of
the file a link leads to, and for a link into one of C<follow> every
directory from that one down), is a 500 and a log line naming it, as suexec
refuses it. A script that is not executable is a 500 (Apache's exec fails;
the answer carries a log line naming the file), and so is one that has
neither a C<#!> line nor the look of a program unless its name (or the
name of the file a link leads to) has a script extension, in which case
perl runs it (Apache's exec would fail; a data file made executable must
not run as perl); a path segment starting
with a dot is 403; a symbolic link is followed only to a file inside
C<root> or inside one of the directories C<follow> names
(C<--cgi-follow-links>; else 403 and a warning naming the link and its
target; stricter than Apache's C<FollowSymLinks>), and the name of the
file it leads to is judged too; what does not exist is 404.

=head1 METHODS

=over

=item resolve(PATH_INFO)

A hash with C<action>: C<script> (C<file>, C<path_info>, C<segments>,
C<stat>, C<cacheable>, C<dirs>, C<absent>), C<static> (C<file>, C<stat>),
C<slash>, or C<deny> (C<status>, and C<log> when it is worth logging,
with its C<level> when it is not C<error>).

=back

=cut
