#!/usr/bin/perl
# D6d: Location with an explicit Status. Plain CGI: 301 with the Location
# header and the script's own body; no internal redirect.
print "Status: 301 Moved Permanently\n";
print "Location: /new/place.html\n";
print "Content-type: text/html\n\n";
print "<a href=\"/new/place.html\">moved</a>\n";
