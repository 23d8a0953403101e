#!/usr/bin/perl
# E2a: the CGI environment contract. Plain CGI (this harness = Apache
# mod_cgi defaults): the non-HTTP_ variable names, the request variables'
# values, and never REMOTE_HOST or MOD_PERL. KAMADO_* (test plumbing) is
# left out.
print "Content-type: text/plain\n\n";
print "keys=", join(",", grep { !/^(HTTP_|KAMADO_)/ } sort keys %ENV), "\n";
foreach $k (qw(GATEWAY_INTERFACE REQUEST_METHOD QUERY_STRING PATH_INFO CONTENT_LENGTH CONTENT_TYPE HTTP_X_TEST)) {
    print "$k=", (defined $ENV{$k} ? $ENV{$k} : '(unset)'), "\n";
}
print "REMOTE_HOST=", (exists $ENV{'REMOTE_HOST'} ? 'SET' : 'unset'), "\n";
print "MOD_PERL=", (exists $ENV{'MOD_PERL'} ? 'SET' : 'unset'), "\n";
