#!/usr/bin/perl
# D4a: binmode STDOUT with an encoding layer. Plain CGI: UTF-8 bytes of
# "\x{3042}\x{3044}" (e3 81 82 e3 81 84), and the layer dies with the
# process.
binmode STDOUT, ':encoding(UTF-8)';
print "Content-type: text/plain; charset=UTF-8\n\n";
print "\x{3042}\x{3044}\n";
