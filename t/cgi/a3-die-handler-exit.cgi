#!/usr/bin/perl
# A3a: a non-local $SIG{__DIE__} handler and a normal exit. Plain CGI:
# exit does not call the die handler: only "ok" is printed.
$SIG{__DIE__} = sub { print "DIE-HANDLER-CALLED(@_)\n"; };
print "Content-type: text/plain\n\n";
print "ok\n";
exit 0;
