#!/usr/bin/perl
# A3b: the script's own error page from $SIG{__DIE__}, the way CGI::Carp's
# fatalsToBrowser decides: only when $^S is false (the die is not inside an
# eval). Plain CGI: the die inside eval is caught quietly; the uncaught die
# prints "Error page: boom at line N" with status 200.
$SIG{__DIE__} = sub {
    return if $^S;
    my $msg = shift;
    print "Content-type: text/plain\n\nError page: $msg";
    exit 0;
};
eval { die "caught\n" };
$where = $ENV{'QUERY_STRING'} eq 'late' ? 'late' : 'early';
print "Content-type: text/plain\n\nbody\n" if $where eq 'late';
die "boom ($where)\n";
