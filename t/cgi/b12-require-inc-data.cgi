#!/usr/bin/perl
# B12: package-less data files required by a bare name through @INC at run
# time, as AWStats loads its lib/*.pm (browsers.pm, search_engines.pm):
# their top level fills the script's globals. Plain CGI: the files load
# on every request, so every count is the data's own, once.
use strict;
use vars qw(%EngineName @EngineOrder $EngineLoads %Hits);
(my $dir = $0) =~ s{[^/]*\z}{};
push @INC, "${dir}b12-lib";
require 'b12-engines.pm';
$Hits{$_} += length $EngineName{$_} for @EngineOrder;
my ($q) = ($ENV{QUERY_STRING} // '') =~ /(\w+)/;
print "Content-type: text/plain\n\n";
print "engines=", scalar(keys %EngineName), "\n";
print "order=@EngineOrder\n";
print "loads=", $EngineLoads // 0, "\n";
print "hits=", join(',', map { "$_:$Hits{$_}" } sort keys %Hits), "\n";
print "query=", $q // '', "\n";
