#!/usr/bin/perl
# B4: two applications, each with its own ./lib.pl and a script of the same
# name (app1/index.cgi, app2/index.cgi). Plain CGI: each runs its own lib.
require './lib.pl';
($item) = $ENV{'QUERY_STRING'} =~ /item=(\w+)/;
print "Content-type: text/plain\n\n";
print "app=", &app_name, " title=$title\n";
print &render($item || 'none', 'x'), "\n";
