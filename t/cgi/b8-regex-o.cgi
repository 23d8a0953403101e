#!/usr/bin/perl
# B8a: /o regex. Plain CGI: every request matches its own keyword.
# Registry cannot match: /o is compiled once per process.
($kw) = $ENV{'QUERY_STRING'} =~ /q=(\w+)/;
@titles = ('apple pie', 'banana split', 'cherry tart');
print "Content-type: text/plain\n\n";
print "kw=$kw\n";
print "match=", join(",", grep { /$kw/o } @titles), "\n";
