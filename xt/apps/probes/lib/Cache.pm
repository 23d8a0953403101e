package Cache;
my %seen;
sub seen { return $seen{ $_[0] }++ ? "again" : "first" }
1;
