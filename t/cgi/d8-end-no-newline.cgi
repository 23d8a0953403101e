#!/usr/bin/perl
# D8a: __END__ as the last line WITHOUT a trailing newline. Plain CGI:
# "end ok".
print "Content-type: text/plain\n\n";
print "end ok\n";
__END__