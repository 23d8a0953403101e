#!/usr/bin/perl
# D6g: headers but no empty line before EOF. Plain CGI: 500 ("Premature
# end of script headers").
print "Content-type: text/plain\n";
