#!/usr/bin/perl
# E2b: %ENV changes (TZ, PATH, deletes, a new variable). Plain CGI: every
# request starts with the server's environment: TZ unset, PATH the standard
# one, no OLD_VALUE; localtime follows TZ=JST-9 after the change.
print "Content-type: text/plain\n\n";
print "tz_at_start=", (defined $ENV{'TZ'} ? $ENV{'TZ'} : 'unset'), "\n";
print "old_value=", (defined $ENV{'OLD_VALUE'} ? $ENV{'OLD_VALUE'} : 'unset'), "\n";
print "path_at_start=$ENV{'PATH'}\n";
$ENV{'TZ'} = 'JST-9';
$ENV{'PATH'} = '/bin:/usr/bin';
$ENV{'OLD_VALUE'} = $ENV{'QUERY_STRING'};
delete @ENV{qw(IFS CDPATH ENV BASH_ENV SERVER_ADMIN)};
@t = gmtime(0); @l = localtime(0);
print "jst_offset_hours=", ($l[2] - $t[2]), "\n";
