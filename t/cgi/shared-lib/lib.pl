# shared-lib/lib.pl: a cgi-lib.pl / town_lib.pl style library. NO package
# line: under plain CGI it is compiled into main of whichever script
# requires it. Defines &decode, &ReadParse, &header and imports LOCK_EX.
use Fcntl qw(:flock);

$lib_loaded++;

sub decode {
    local ($pair, $k, $v);
    foreach $pair (split(/&/, $ENV{'QUERY_STRING'})) {
        ($k, $v) = split(/=/, $pair, 2);
        $v =~ tr/+/ /;
        $v =~ s/%([0-9a-fA-F][0-9a-fA-F])/pack("C", hex($1))/eg;
        $FORM{$k} = $v;
    }
}

sub ReadParse {
    local (*in) = @_ if @_;
    local ($buf, $pair, $k, $v);
    if ($ENV{'REQUEST_METHOD'} eq 'POST') {
        read(STDIN, $buf, $ENV{'CONTENT_LENGTH'});
    } else {
        $buf = $ENV{'QUERY_STRING'};
    }
    foreach $pair (split(/[&;]/, $buf)) {
        ($k, $v) = split(/=/, $pair, 2);
        $v =~ tr/+/ /;
        $v =~ s/%([0-9a-fA-F][0-9a-fA-F])/pack("C", hex($1))/eg;
        $in{$k} .= "\0" if defined($in{$k});
        $in{$k} .= $v;
    }
    return scalar(keys %in);
}

sub header {
    print "Content-type: text/plain\n\n";
}

sub lock_mode { return LOCK_EX; }

1;
