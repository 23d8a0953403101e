#!/usr/bin/perl
# A3c: CGI::Carp fatalsToBrowser (needs libcgi-pm-perl). Plain CGI: the die
# produces CGI::Carp's HTML error page (status 200, "Software error:" and
# the message); a die inside eval is not reported.
use CGI::Carp qw(fatalsToBrowser);
eval { die "inside eval\n" };
$item = $ENV{'QUERY_STRING'} || 'none';
die "cannot open database for item $item\n";
