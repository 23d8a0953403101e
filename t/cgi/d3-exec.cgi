#!/usr/bin/perl
# D3d: exec. Plain CGI: the program replaces the script's process, so its
# output ends the response and nothing after the exec runs; an exec that
# fails returns false and the script goes on.
print "Content-type: text/plain\n\n";
print "before\n";
exec('/nonexistent/program') or print "exec failed: ", ($! ? "errno set" : "no errno"), "\n";
exec('/bin/sh', '-c', 'echo "from exec: $QUERY_STRING"');
print "AFTER-EXEC\n";
