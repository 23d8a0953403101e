package Kamado::Test::Procs;
use 5.024;
use strict;
use warnings;

use Exporter 'import';
our @EXPORT_OK = qw(running zombies_of live_children_of put_script);

# Helpers for tests about the processes CGI scripts leave: read from /proc.

# Whether PID is a live process (a zombie is not: it has exited).
sub running {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/stat" or return 0;
    my $stat = <$fh> // return 0;
    my ($state) = substr($stat, rindex($stat, ')') + 2) =~ /\A(\S)/;
    return ($state // 'Z') ne 'Z';
}

# The zombie children of PID.
sub zombies_of { return _children_of($_[0], sub { $_[0] eq 'Z' }) }

# The children of PID that have not exited.
sub live_children_of { return _children_of($_[0], sub { $_[0] ne 'Z' }) }

# The children of PARENT whose state (a letter of /proc/PID/stat) WANTED
# accepts.
sub _children_of {
    my ($parent, $wanted) = @_;
    my @found;
    for my $file (glob '/proc/[0-9]*/stat') {
        open my $fh, '<', $file or next;
        my $stat = <$fh> // next;
        my ($pid) = $stat =~ /\A(\d+)/;
        my ($state, $ppid) = split ' ', substr($stat, rindex($stat, ')') + 2);
        push @found, $pid if $ppid == $parent && $wanted->($state);
    }
    return @found;
}

# Writes an executable script DIR/NAME.
sub put_script {
    my ($dir, $name, $content) = @_;
    open my $fh, '>', "$dir/$name" or die "$dir/$name: $!";
    print $fh $content;
    close $fh;
    chmod 0755, "$dir/$name" or die "$dir/$name: $!";
}

1;
__END__

=head1 NAME

Kamado::Test::Procs - what tests see of processes in /proc

=cut
