#!/usr/bin/perl
# A2: exit inside eval. Plain CGI: exit cannot be caught by eval, so neither
# "AFTER-EVAL" nor "footer" is ever printed and $@ is never looked at.
print "Content-type: text/plain\n\n";
eval {
    print "in eval\n";
    exit;
    print "AFTER-EXIT in eval\n";
};
print "AFTER-EVAL: \$\@=[$@]\n";
print "footer\n";
