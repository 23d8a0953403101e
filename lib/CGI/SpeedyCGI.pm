package CGI::SpeedyCGI;
use 5.024;
use strict;
use warnings;

use PersistentPerl ();

# SpeedyCGI's name for the PersistentPerl API: the same methods and the
# same state, with i_am_speedy for i_am_perperl.
our $VERSION = '2.22';
our @ISA = ('PersistentPerl');

sub i_am_speedy { PersistentPerl::i_am_perperl(@_) }

1;
__END__

=head1 NAME

CGI::SpeedyCGI - the SpeedyCGI API for scripts run by Kamado

=head1 SYNOPSIS

    #!/usr/bin/speedy
    use CGI::SpeedyCGI;
    my $sp = CGI::SpeedyCGI->new;
    $sp->add_shutdown_handler(sub { ... }) if $sp->i_am_speedy;

=head1 DESCRIPTION

L<PersistentPerl> under SpeedyCGI's name: every method of PersistentPerl,
with C<i_am_speedy> as well as C<i_am_perperl>. It stands in for the real
CGI::SpeedyCGI module: install one or the other, not both.

=over

=item i_am_speedy

True when the script runs under Kamado (as C<i_am_perperl>).

=back

=cut
