#!/usr/bin/perl -w
# E10c: -w at compile time. Plain CGI: the closure warning "Variable "$x"
# will not stay shared" appears on stderr at compile time, and inner()
# sees the first $x only.
sub outer {
    my $x = shift;
    sub inner { return defined $x ? $x : 'undef' }
    return inner();
}
print "Content-type: text/plain\n\n";
print "first=", outer('one'), " second=", outer('two'), "\n";
print "W=$^W\n";
