package Kamado::CGI::Source;
use 5.024;
use strict;
use warnings;

# A CGI script's source as the in-process modes (registry, perlrun) need
# it: the code to wrap in a sub, the text after __END__/__DATA__ (what
# the script reads from DATA) and the package DATA belongs to, and the
# switches of its #! line. A wrapper sub cannot simply enclose the whole
# file: perl stops reading at __END__, __DATA__, ^D or ^Z, and would not
# see the wrapper's closing brace (doc/CGI-HAZARDS.md D8), so the code is cut at
# the marker. The marker is found line by line, skipping POD and
# here-documents, where such a line is only text.

# Reads FILE: { code, data (undef without a marker), data_package (undef:
# the script's own package), switches => [..] } or dies naming the file.
sub read {
    my ($class, $file) = @_;
    open my $fh, '<:raw', $file or die "$file: cannot read: $!\n";
    my $src = do { local $/; <$fh> } // '';
    my ($code, $data, $package) = split_marker($src);
    my ($perl, @switches) = shebang($src =~ /\A([^\n]*)/);
    return { code => $code, data => $data, data_package => $package, switches => \@switches, perl => $perl };
}

# (whether perl runs it, the switches of its #! line) of a script's first
# line: no #! line, or an interpreter whose name has "perl" in it (found
# through env or not), is perl;
# so is SpeedyCGI's speedy, and then the first is the name perl must be
# started under to run it (see Kamado::CGI::Mode::Exec::command); a program
# (ELF) is not. PersistentPerl's and SpeedyCGI's own options come after a
# "--" (#!/usr/bin/perperl -w -- -t300): they are not perl's, and are left
# out.
sub shebang {
    my ($first) = @_;
    return 0 if $first =~ /\A\x7fELF/;
    # (#!/usr/bin/env perl is perl found in PATH: the same perl here)
    $first =~ s{^#!\s*\S*/env\s+(?=\S*perl\S*(?:\s|\z))}{#!};
    my ($interpreter) = $first =~ /^#!\s*(\S+)/;
    return (1) unless defined $interpreter;
    my ($speedy) = $interpreter =~ m{(?:\A|/)(perperl|speedy)\z};
    return 0 unless $speedy || $interpreter =~ /perl/;
    my @switches = $first =~ /^#!\s*\S+\s+(-\S.*?)\s*$/ ? split(' ', $1) : ();
    if ($speedy) {
        my ($end) = grep { $switches[$_] eq '--' } 0 .. $#switches;
        splice @switches, $end if defined $end;
    }
    return ($interpreter =~ /perl/ ? 1 : $speedy, @switches);
}

# What tells a changed file: device, inode, size, mtime ('' when it is
# gone). stat_key takes a stat list, file_key a path.
sub stat_key { @_ ? join(':', @_[0, 1, 7, 9]) : '' }
sub file_key { stat_key(stat $_[0]) }

# Whether every file of { path => key } still has its key.
sub unchanged {
    my ($keys) = @_;
    return !grep { file_key($_) ne $keys->{$_} } keys %$keys;
}

# (code, data, package of DATA) of SOURCE.
sub split_marker {
    my ($src) = @_;
    my ($pos, $heredoc, $pod, $package) = (0, undef, 0, undef);
    while ($src =~ /\G([^\n]*)(\n|\z)/gc) {
        my ($line, $start) = ($1, $-[0]);
        last if !length $line && !length $2;
        (my $bare = $line) =~ s/\r\z//;
        if (defined $heredoc) {
            $heredoc = undef if $bare =~ /^\s*\Q$heredoc\E\z/;
            next;
        }
        if ($pod) {
            $pod = 0 if $bare =~ /^=cut\b/;
            next;
        }
        if ($bare =~ /^=[a-zA-Z]/) { $pod = 1; next }
        # ^D or ^Z where a statement starts: perldata's end of the script
        if ($bare =~ /^\s*[\x04\x1a]/) {
            return (substr($src, 0, $start), undef, undef);
        }
        if ($bare =~ /^__(END|DATA)__\b/) {
            my $kind = $1;
            my $after = pos($src);
            # __END__ in the top-level script is main's DATA; __DATA__
            # belongs to the package in force at the marker
            return (substr($src, 0, $start), substr($src, $after), $kind eq 'DATA' ? $package : undef);
        }
        $package = $1 if $bare =~ /^\s*package\s+([\w:]+)\s*;/;
        # a here-document starts on this line: its body is not code
        if ($bare =~ /<<~?\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z_]\w*))/ && $bare !~ /^\s*#/) {
            $heredoc = $1 // $2 // $3;
        }
    }
    return ($src, undef, undef);
}


# (the worker's own and perl's: never a script's to change)
my $NOT_FOREIGN = qr/\A(?:main|CORE|Kamado|Internals|UNIVERSAL)::/;

# qualified_names(CODE) -> [the package-qualified variable names CODE
# spells: $A::b, @A::b, %A::b, *A::b, ${A::b}, ${"A::b"}]; names that are
# not variables among them (a sub called as *A::b) cost a copy, no harm.
sub qualified_names {
    my %names;
    $names{$1} = 1 while $_[0] =~ /[\$\@%*](?:\{\s*["']?)?((?:[A-Za-z_]\w*)?(?:::\w+)+)/g;
    return [grep { !/$NOT_FOREIGN/ && !/\A::/ && !/::\z/ } sort keys %names];
}

1;
__END__

=head1 NAME

Kamado::CGI::Source - a CGI script's code, DATA text and #! switches

=head1 DESCRIPTION

Used by L<Kamado::CGI::InProcess::Run>. The search for the end marker is
line-based: a C<__END__> line inside a string other than a here-document
would be taken for the marker (perl itself would not), which no script
in the hazard fixtures does.

=cut
