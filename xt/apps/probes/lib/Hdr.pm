package Hdr;
print "Content-Type: text/plain\n\n";
1;
