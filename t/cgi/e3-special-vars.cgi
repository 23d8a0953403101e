#!/usr/bin/perl
# E3: special variables set without local. Plain CGI: every request starts
# with $/ = "\n", $\ and $, empty, $" = " ", so the data file has 3 lines.
print "Content-type: text/plain\n\n";
print "rs=", (defined $/ ? ($/ eq "\n" ? 'newline' : 'other') : 'undef'),
      " ors=", (defined $\ ? 'set' : 'unset'), " ofs=", (defined $, ? 'set' : 'unset'),
      " list_sep=[$\"] subsep=", ($; eq "\034" ? 'default' : 'other'), "\n";
open(FH, "<./e3-data.txt");
@lines = <FH>;
close(FH);
print "lines=", scalar(@lines), "\n";
@w = ('a', 'b');
print "joined=@w\n";
$/ = undef; $\ = "!\n"; $, = "|"; $" = "-"; $; = ":"; $^W = 1;
