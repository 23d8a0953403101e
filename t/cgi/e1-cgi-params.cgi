#!/usr/bin/perl
# E1a: CGI.pm form data across users (needs libcgi-pm-perl). Plain CGI: each
# request sees only its own parameters, both OO and function style.
use CGI qw(:standard);
$q = CGI->new;
print header(-type => 'text/plain');
print "name=", (defined(scalar $q->param("name")) ? scalar($q->param("name")) : "undef"), "\n";
print "fn_name=", (defined(scalar param("name")) ? scalar(param("name")) : "undef"), "\n";
print "params=", join(",", sort $q->param), "\n";
