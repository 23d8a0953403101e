#!/usr/bin/perl
# E5a: rand-based session id. Plain CGI: different on every request
# (compare => 'differs'): RANDOM OUTPUT.
@chars = ('a' .. 'z', '0' .. '9');
$sid = join('', map { $chars[rand @chars] } 1 .. 25);
print "Content-type: text/plain\n\n";
print "sid=$sid\n";
