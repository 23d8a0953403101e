#!/usr/bin/perl
# D5: an nph- script: its output is the whole HTTP response, status line
# included. Plain CGI: "HTTP/1.0 299 Custom" passed through unchanged.
$| = 1;
print "HTTP/1.0 299 Custom\r\n";
print "Content-Type: text/plain\r\n";
print "X-NPH: yes\r\n\r\n";
print "nph body\n";
