#!/usr/bin/perl
# E6: a sendmail-style pipe to a child process and a background child that
# closes its stdio. Plain CGI: the mail text round-trips; the response ends
# without waiting for the background child (~2 s).
$tmp = $ENV{'KAMADO_TEST_TMP'};
$mail = "$tmp/e6-mail-$$.txt";
open(MAIL, "|cat > $mail") or die "pipe: $!";
print MAIL "To: admin\nSubject: new post\n\nfrom $ENV{'QUERY_STRING'}\n";
close(MAIL);
open(M, $mail); @m = <M>; close(M); unlink $mail;
system("sleep 2 </dev/null >/dev/null 2>&1 &");
print "Content-type: text/plain\n\n";
print "mail lines=", scalar(@m), " last=$m[-1]";
