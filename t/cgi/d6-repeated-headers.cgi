#!/usr/bin/perl
# D6h: repeated headers, CRLF header lines, odd spacing. Plain CGI: 200,
# both Set-Cookie headers in order, X-Custom kept, Content-Type trimmed.
print "Content-Type:   text/plain  \r\n";
print "Set-Cookie: a=1; path=/\r\n";
print "Set-Cookie: b=2; path=/\r\n";
print "X-Custom:value:with:colons\r\n";
print "\r\n";
print "cookies set\n";
