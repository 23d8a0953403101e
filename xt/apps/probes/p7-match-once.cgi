#!/usr/bin/perl
my @hits;
for my $w (qw(apple banana apricot)) { push @hits, $w if $w =~ m?^a?; }
print "Content-Type: text/plain\n\n", "first a-word: @hits\n";
