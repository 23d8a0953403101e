#!/usr/bin/perl
# B8b: an each() iterator on a global left mid-way. Plain CGI: the hash is
# new each request, so the first loop always sees all 3 entries.
%CACHE = (a => 1, b => 2, c => 3) unless %CACHE;
$n = 0;
while (($k, $v) = each %CACHE) { $n++; }
($first) = each %CACHE;     # leave the iterator after the first key
print "Content-type: text/plain\n\n";
print "entries=$n\n";
