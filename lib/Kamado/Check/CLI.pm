package Kamado::Check::CLI;
use 5.024;
use strict;
use warnings;

use Getopt::Long ();
use Kamado::Check;
use Kamado::Check::Report;

# kamado check [--json] [--sarif] [--write-mode-files] PATH...
# Exit status: 0 when every script was read, 2 (with a message naming
# what) when one could not be, or on a usage error.

sub run {
    my ($class, @argv) = @_;
    my %o;
    Getopt::Long::Configure(qw(no_ignore_case no_auto_abbrev));
    local $SIG{__WARN__} = sub { die "kamado check: $_[0]" };
    Getopt::Long::GetOptionsFromArray(\@argv, \%o, 'json', 'sarif', 'write-mode-files', 'help|h')
        or return 2;
    if ($o{help} || !@argv) {
        print STDERR "usage: kamado check [--json] [--sarif] [--write-mode-files] PATH...\n";
        return $o{help} ? 0 : 2;
    }
    die "kamado check: --json and --sarif: choose one\n" if $o{json} && $o{sarif};
    my ($scripts, $errors) = Kamado::Check->scripts(@argv);
    my @results = map { Kamado::Check->script($_, full => 1) } @$scripts;
    push @$errors, map { "$_->{script}: $_->{reason}" } grep { $_->{error} && $_->{error} =~ /\Acannot read/ } @results;
    print $o{json} ? Kamado::Check::Report->json(\@results)
        : $o{sarif} ? Kamado::Check::Report->sarif(\@results) : Kamado::Check::Report->text(\@results);
    push @$errors, write_mode_files(\@results) if $o{'write-mode-files'};
    print STDERR "kamado check: $_\n" for @$errors;
    return @$errors ? 2 : 0;
}

our $MARK = '# written by kamado check';

# The verdicts as .kamado-cgi files, one per directory, a line per mode
# naming its scripts. A .kamado-cgi that kamado check did not write is
# left alone (an error says so): it is the administrator's.
sub write_mode_files {
    my ($results) = @_;
    my (%dirs, @errors);
    for my $r (@$results) {
        my ($dir, $base) = $r->{script} =~ m{\A(.*)/([^/]+)\z};
        next if $base =~ /\s/;
        push $dirs{$dir}{ $r->{mode} }->@*, $base;
    }
    for my $dir (sort keys %dirs) {
        my $file = "$dir/.kamado-cgi";
        if (-e $file) {
            open my $fh, '<', $file or do { push @errors, "$file: cannot read: $!"; next };
            if ((<$fh> // '') !~ /\A\Q$MARK\E/) { push @errors, "$file: not written by kamado check, left alone"; next }
        }
        my $text = "$MARK: review, then keep it\n";
        for my $mode (qw(registry perlrun fork exec)) {
            my $list = $dirs{$dir}{$mode} or next;
            $text .= "mode $mode @{[ sort @$list ]}\n";
        }
        open my $out, '>', $file or do { push @errors, "$file: cannot write: $!"; next };
        print $out $text;
        close $out or push @errors, "$file: cannot write: $!";
        print STDERR "kamado check: wrote $file\n";
    }
    return @errors;
}

1;
__END__

=head1 NAME

Kamado::Check::CLI - the kamado check command

=cut
