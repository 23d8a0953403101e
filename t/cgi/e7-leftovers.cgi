#!/usr/bin/perl
# E7: a lock held on a global handle and an object that saves itself in
# DESTROY. Plain CGI: the lock is always free (process exit released it)
# and the saved list shows the earlier requests' names in order: the
# requests of one case must share one KAMADO_TEST_TMP.
use Fcntl qw(:flock);
package Session;
sub new { my ($c, $n) = @_; return bless { name => $n }, $c }
sub DESTROY { open(S, ">>$ENV{'KAMADO_TEST_TMP'}/e7-sessions.txt"); print S "$_[0]{name}\n"; close(S); }
package main;
($name) = $ENV{'QUERY_STRING'} =~ /name=(\w+)/;
open(LOCK, ">$ENV{'KAMADO_TEST_TMP'}/e7.lock");
$locked = flock(LOCK, LOCK_EX | LOCK_NB);
$session = Session->new($name);
open(S, "$ENV{'KAMADO_TEST_TMP'}/e7-sessions.txt") and @saved = <S>;
close(S);
chomp @saved;
print "Content-type: text/plain\n\n";
print "lock=", ($locked ? "got" : "busy"), "\n";
print "saved=", (@saved ? join(",", @saved) : "(none)"), "\n";
