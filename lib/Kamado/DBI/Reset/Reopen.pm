package Kamado::DBI::Reset::Reopen;
use 5.024;
use strict;
use warnings;

# A driver without a known session reset (SQLite and any other): what a
# request may have changed on the connection cannot be undone, so the
# handle lasts until the end of the request and is closed then.

sub connected  { 1 }
sub socket     { undef }
sub attributes { () }
sub keeps      { 0 }
sub rolls_back { 0 }
sub settle     { 1 }
sub session    { 0 }

1;
__END__

=head1 NAME

Kamado::DBI::Reset::Reopen - handles of drivers without a session reset: one request long

=cut
