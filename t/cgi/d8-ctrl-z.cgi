#!/usr/bin/perl
# D8d: a DOS ^Z end-of-script marker (perldata: a synonym of __END__).
# Plain CGI: everything after the ^Z is ignored.
print "Content-type: text/plain\n\n";
print "before ctrl-z\n";

print "AFTER-CTRL-Z\n";
this is not perl }}}
