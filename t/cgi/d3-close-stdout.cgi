#!/usr/bin/perl
# D3c: close(STDOUT) to finish the response and keep working. Plain CGI:
# the response is complete at the close; later prints go nowhere; the
# script then does its "background" work and logs to stderr.
print "Content-type: text/plain\n\n";
print "thanks, your post is saved\n";
close(STDOUT);
print "AFTER-CLOSE\n";
select(undef, undef, undef, 0.2);
print STDERR "d3-close-stdout: work done after close\n";
