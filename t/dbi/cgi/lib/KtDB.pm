package KtDB;
# A legacy script's own module (t/dbi/cgi/kept.cgi) that connects once
# and keeps the handle in a file-scoped variable: loaded from @INC, it
# outlives each request in the registry mode.
use strict;
use warnings;
use DBI;

my $dbh;

sub dbh {
    $dbh //= DBI->connect($ENV{KT_DSN}, $ENV{KT_USER}, $ENV{KT_PASS}, { RaiseError => 1, PrintError => 0 });
    return $dbh;
}

1;
