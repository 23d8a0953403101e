#!/usr/bin/perl
# D3d: sysread(STDIN) and fileno(STDIN). Plain CGI: STDIN is fd 0 and
# sysread returns the body.
$want = $ENV{'CONTENT_LENGTH'} || 0;
$got = 0;
while ($got < $want) {
    $n = sysread(STDIN, $buffer, $want - $got, $got);
    last unless $n;
    $got += $n;
}
print "Content-type: text/plain\n\n";
print "fileno=", fileno(STDIN), " fileno_out=", fileno(STDOUT), "\n";
print "sysread=", (defined $n ? "ok" : "error"), " got=$got\n";
print "body=$buffer\n";
