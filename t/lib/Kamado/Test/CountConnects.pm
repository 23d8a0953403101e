package Kamado::Test::CountConnects;
use strict;
use warnings;

# Loaded into a server (-M) for tests: every DBI->connect in its
# processes appends the process's pid to the file named by
# $ENV{KAMADO_TEST_CONNECTS} (read when this loads), through DBI's
# connect_via hook (the one Apache::DBI uses), before connecting.

use DBI ();

my $file = $ENV{KAMADO_TEST_CONNECTS} // die "Kamado::Test::CountConnects: KAMADO_TEST_CONNECTS is not set\n";
$DBI::connect_via = __PACKAGE__ . '::connect';

sub connect {
    my ($drh, @args) = @_;
    open my $fh, '>>', $file or die "$file: $!\n";
    print $fh "$$\n";
    close $fh;
    return $drh->connect(@args);
}

1;
