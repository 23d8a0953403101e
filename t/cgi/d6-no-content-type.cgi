#!/usr/bin/perl
# D6i: a valid header block without Content-Type. Apache 2.4: 200 and no
# Content-Type header (not an error).
print "X-Generator: d6\n\n";
print "untyped body\n";
