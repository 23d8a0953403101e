#!/usr/bin/perl
# D1b: read STDIN to EOF. Plain CGI: the body's lines, then EOF (the
# request ends; it does not hang).
@lines = <STDIN>;
print "Content-type: text/plain\n\n";
print "lines=", scalar(@lines), "\n";
print "last=$lines[-1]" if @lines;
print "\n";
