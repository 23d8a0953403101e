#!/usr/bin/perl
# sql.cgi under another name: a second script (a zygote of its own in
# fork mode), for the tests that need two.
use strict;
use warnings;
use DBI;

do './sql.cgi' or die $@ || "sql.cgi: $!";
