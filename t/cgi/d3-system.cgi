#!/usr/bin/perl
# D3a: system() and backticks. Plain CGI: the child writes to fd 1, which
# is the response: "from system" appears between the two prints.
$| = 1;
print "Content-type: text/plain\n\n";
print "before\n";
system("echo from system");
system('/bin/sh', '-c', 'echo "from sh: $QUERY_STRING"');
$captured = `echo from backticks`;
print "captured: $captured";
print "after\n";
