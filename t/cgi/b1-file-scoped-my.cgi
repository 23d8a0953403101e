#!/usr/bin/perl
# B1: file-scoped my read by named subs. Plain CGI: show() is always
# "2 / 2" and greet() always sees this request's name.
foreach (split(/&/, $ENV{'QUERY_STRING'})) {
    ($k, $v) = split(/=/, $_, 2);
    $v =~ tr/+/ /; $v =~ s/%([0-9a-fA-F]{2})/pack("C", hex($1))/eg;
    $in{$k} = $v;
}
my $count = 1;
my $name = $in{'name'} || 'nobody';
my @valid = ('example.com', $in{'host'} || 'localhost');
sub show  { return ++$count }
sub greet { return "hello $name" }
sub check { return (grep { $_ eq $in{'host'} } @valid) ? "valid" : "bad URI" }
print "Content-type: text/plain\n\n";
print "count: ", show(), " / $count\n";
print greet(), "\n";
print "check: ", check(), "\n";
