#!/usr/bin/perl
# Uses the handle its module KtDB keeps (no DBI->connect after the first
# request): leave=1 begins a transaction, inserts and sets session state.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use KtDB;

my $dbh = KtDB::dbh();
my ($id) = $dbh->selectrow_array($ENV{KT_ID_SQL});
print "Content-Type: text/plain\n\n";
print "id=$id pid=$$\n";
if (($ENV{QUERY_STRING} // '') eq 'leave=1') {
    $dbh->begin_work;
    $dbh->do('INSERT INTO t VALUES (1)');
}
my $sth = $dbh->prepare('SELECT COUNT(*) FROM t');
$sth->execute;
print $sth->fetchrow_array, "\n";
