#!/usr/bin/perl
# E1c: $CGI::POST_MAX / $CGI::DISABLE_UPLOADS set by one script (needs
# libcgi-pm-perl). Plain CGI: with ?limit=1 this request refuses a 20-byte
# POST (413 cgi_error); without it the POST is accepted -- the setting never
# carries over to the next request.
use CGI;
($limit) = $ENV{'QUERY_STRING'} =~ /limit=(\d)/;
$CGI::POST_MAX = 10 if $limit;
$CGI::DISABLE_UPLOADS = 1 if $limit;
$q = CGI->new;
print $q->header(-type => 'text/plain');
print "error=", ($q->cgi_error || 'none'), "\n";
print "post_max=$CGI::POST_MAX\n";
