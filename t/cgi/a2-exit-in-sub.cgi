#!/usr/bin/perl
# A2: exit in a sub called from inside eval and from a loop. Plain CGI:
# "error: no such entry" and nothing after it.
sub error_page {
    print "Content-type: text/plain\n\n";
    print "error: $_[0]\n";
    exit;
}
foreach $i (1 .. 3) {
    eval { &error_page("no such entry") if $i == 2; };
    print "AFTER-SUB-EXIT i=$i\n" if $i >= 2;
}
print "Content-type: text/plain\n\nnever\n";
