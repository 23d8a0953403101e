#!/usr/bin/perl
# B10: a script with its own "sub handler" and undeclared $self/$eval/$r
# (no strict). Plain CGI: handler() is the script's own, the variables are
# undefined.
sub handler { return "script's own handler" }
print "Content-type: text/plain\n\n";
print "handler=", handler(), "\n";
print "self=", (defined $self ? "DEFINED(" . ref($self) . ")" : "undef"), "\n";
print "eval=", (defined $eval ? "DEFINED" : "undef"), "\n";
print "r=", (defined $r ? "DEFINED" : "undef"), "\n";
print "args=", scalar(@_), "/", scalar(@ARGV), "\n";
