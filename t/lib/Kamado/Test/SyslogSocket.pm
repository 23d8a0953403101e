package Kamado::Test::SyslogSocket;
use 5.024;
use strict;
use warnings;

# perl -MKamado::Test::SyslogSocket=PATH script/kamado ... : Sys::Syslog
# in that kamado sends to the unix datagram socket PATH (the test's)
# instead of /dev/log. The server's own code is unchanged: setlogsock
# before openlog is how Sys::Syslog is pointed at a socket.

use Sys::Syslog ();

sub import {
    my ($class, $path) = @_;
    Sys::Syslog::setlogsock({ type => 'unix', path => $path })
        or die "Kamado::Test::SyslogSocket: setlogsock $path failed\n";
}

1;
