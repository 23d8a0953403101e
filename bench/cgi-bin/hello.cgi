#!/usr/bin/perl
# The hello CGI of issue 4's benchmark.
print "Content-Type: text/plain\n\nHello World";
