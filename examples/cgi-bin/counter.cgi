#!/usr/bin/perl -w
# A legacy-style CGI script, unchanged: a global counter and a file-scoped
# lexical read by a named sub. Under plain CGI it prints 1 and 1 on every
# request; so does Kamado's fork mode, where ModPerl::Registry counts up.
use CGI;
my $q = CGI->new;
my $name = $q->param('name') || 'World';
$hits++;
sub greeting { return "Hello, $name" }
print $q->header('text/html; charset=utf-8');
print "<p>", $q->escapeHTML(greeting()), "</p>\n";
print "<p>hits in this process: $hits (1 under CGI, every time)</p>\n";
print qq{<form><input name="name"><input type="submit"></form>\n};
