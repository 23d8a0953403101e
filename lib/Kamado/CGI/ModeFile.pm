package Kamado::CGI::ModeFile;
use 5.024;
use strict;
use warnings;

use Kamado ();    # (key: XS)
use Kamado::CGI::Source;

# Per-directory and per-script modes: a file named .kamado-cgi in any
# directory of a CGI tree (dotfiles are never served), read again when it
# changes:
#
#   # this directory and the ones below it
#   mode registry
#   # these scripts of this directory
#   mode fork upload.cgi progress.cgi
#
# For a script, the nearest file decides: its own directory's, then its
# parent's, up to the root; in a file, a line naming the script wins over
# a line for the whole directory. Without any, the server's --cgi-mode.

our $NAME = '.kamado-cgi';

sub new {
    my ($class, %a) = @_;
    return bless { root => $a{root}, modes => $a{modes}, files => {}, chains => {} }, $class;
}

# The mode files that can decide for the scripts of DIR: [paths], its own
# directory's first, up to the root's.
sub files {
    my ($self, $dir) = @_;
    return $self->{chains}{$dir} //= do {
        %{ $self->{chains} } = () if keys %{ $self->{chains} } >= 1000;
        my @files;
        for (my $d = $dir; ; $d =~ s{/[^/]*\z}{}) {
            push @files, "$d/$NAME";
            last if length $d <= length $self->{root};
        }
        \@files;
    };
}

# key(FILES): what tells that some of these files appeared, changed or
# went, one stat of each (XS, as it is looked at for every request:
# xs/cgi/kd_cgi_mapping.c).

# The mode for the script DIR/BASE: (mode) or (undef, error) for a file
# that cannot be used (the error names the file and line), or () when no
# file says.
sub mode_for {
    my ($self, $dir, $base) = @_;
    my $own = 1;
    for my $path ($self->files($dir)->@*) {
        my $file = $self->_read($path);
        return (undef, $file->{error}) if $file && $file->{error};
        if ($file) {
            return $file->{scripts}{$base} if $own && defined $file->{scripts}{$base};
            return $file->{all} if defined $file->{all};
        }
        $own = 0;
    }
    return ();
}

sub _read {
    my ($self, $path) = @_;
    my $key = Kamado::CGI::Source::stat_key(stat $path);
    if ($key eq '') {
        delete $self->{files}{$path};
        return undef;
    }
    my $cached = $self->{files}{$path};
    return $cached if $cached && $cached->{key} eq $key;
    my $file = { key => $key, scripts => {} };
    if (open my $fh, '<', $path) {
        while (my $line = <$fh>) {
            $line =~ s/#.*//;
            my ($word, $mode, @scripts) = split ' ', $line or next;
            if ($word ne 'mode' || !defined $mode) {
                $file->{error} = "$path line $.: expected 'mode MODE [SCRIPT...]'";
                last;
            }
            if (!grep { $_ eq $mode } $self->{modes}->@*) {
                $file->{error} = "$path line $.: unknown mode '$mode' (known: $self->{modes}->@*)";
                last;
            }
            if (my ($bad) = grep { m{/} } @scripts) {
                $file->{error} = "$path line $.: '$bad': a script of this directory, without a path";
                last;
            }
            $file->{scripts}{$_} = $mode for @scripts;
            $file->{all} = $mode unless @scripts;
        }
    } else {
        $file->{error} = "$path: cannot read: $!";
    }
    return $self->{files}{$path} = $file;
}

1;
__END__

=head1 NAME

Kamado::CGI::ModeFile - per-directory and per-script CGI modes (.kamado-cgi)

=cut
