#!/usr/bin/perl
# D3b: format STDOUT / write. Plain CGI: a formatted table.
($who) = $ENV{'QUERY_STRING'} =~ /name=(\w+)/;
@rows = (['alice', 10], ['bob', 7], [$who || 'you', 3]);
format STDOUT_TOP =
Name       Score
---------- -----
.
format STDOUT =
@<<<<<<<<< @>>>>
$name,     $score
.
print "Content-type: text/plain\n\n";
foreach $r (@rows) { ($name, $score) = @$r; write; }
