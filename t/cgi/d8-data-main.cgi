#!/usr/bin/perl
# D8f: plain __DATA__ in main, read whole on every request. Plain CGI: both
# lines every time (DATA is fresh per process).
print "Content-type: text/plain\n\n";
@lines = <DATA>;
print "data lines=", scalar(@lines), ": ", join("", @lines);
__DATA__
first line
second line
