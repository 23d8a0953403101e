#!/usr/bin/perl
# B3: no package line; code refers to main:: explicitly. Plain CGI:
# everything is in main: package=main, the dispatch works, $main::config
# and $::config are the file's $config, main->can finds the sub.
$config = "board.conf";
sub show_form { return "form shown" }
sub show_list { return "list shown" }
($action) = $ENV{'QUERY_STRING'} =~ /mode=(\w+)/;
$action ||= 'show_form';
print "Content-type: text/plain\n\n";
print "package=", __PACKAGE__, "\n";
print "dispatch=", &{"main::$action"}(), "\n";
print "config=$main::config/$::config\n";
print "can=", (main->can($action) ? "yes" : "no"), "\n";
print "caller_pkg=", scalar(caller(0)) || 'none', "\n";
