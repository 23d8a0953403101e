#!/usr/bin/perl
# D6c: Location: with a local path and no Status. Plain CGI: an internal
# redirect: Apache serves /cgi-bin/d6-status.cgi?from=local as a GET and
# the client never sees a 3xx.
print "Location: /cgi-bin/d6-status.cgi?from=local\n\n";
