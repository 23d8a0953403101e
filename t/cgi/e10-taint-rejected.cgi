#!/usr/bin/perl -T
# E10b: what taint mode rejects stays rejected: ?path runs a program with
# PATH as the environment gave it (tainted), ?arg untaints PATH but puts
# the (tainted) query in the command. Plain CGI: each dies at its
# backticks, after "before", and logs why.
$| = 1;
print "Content-type: text/plain\n\n";
print "before\n";
if ($ENV{QUERY_STRING} eq 'path') {
    print `echo path`;
} else {
    $ENV{PATH} =~ /(.*)/ and $ENV{PATH} = $1;
    print `echo $ENV{QUERY_STRING}`;
}
print "after\n";
