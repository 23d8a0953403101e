#!/usr/bin/perl
# B5: the top-level code of a required config file. Plain CGI: it runs on
# every request: loaded=1, admins has root plus at most this request's user.
require './b5-config.pl';
($user) = $ENV{'QUERY_STRING'} =~ /grant=(\w+)/;
push @admins, $user if $user;
print "Content-type: text/plain\n\n";
print "loaded=$loaded\n";
print "admins=@admins\n";
print "config_fresh=", (abs(time - $config_time) <= 2 ? 1 : 0), "\n";
