#!/usr/bin/perl
# D2: CGI->new twice in one request, POST body (needs libcgi-pm-perl).
# Plain CGI: both objects see this request's parameters.
use CGI;
$q1 = CGI->new;
$q2 = CGI->new;
print $q1->header(-type => 'text/plain');
print "q1=", join(",", map { "$_=" . $q1->param($_) } sort $q1->param), "\n";
print "q2=", join(",", map { "$_=" . $q2->param($_) } sort $q2->param), "\n";
