#!/usr/bin/perl
# B9: modulino guard and caller depth. Plain CGI: top-level caller is
# false, main() runs, and inside main() there is exactly one frame.
sub main {
    my $depth = 0;
    $depth++ while caller($depth);
    print "Content-type: text/plain\n\n";
    print "main ran, depth=$depth\n";
    print "called from line ", (caller(0))[2], " of ", ((caller(0))[1] =~ m{([^/]+)$})[0], "\n";
}
main() unless caller;
