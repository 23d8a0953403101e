package Kamado::Notify;
use 5.024;
use strict;
use warnings;

use Socket qw(AF_UNIX SOCK_DGRAM pack_sockaddr_un);

# systemd's readiness protocol (sd_notify): with Type=notify, systemd
# passes NOTIFY_SOCKET, a unix datagram socket, and waits for READY=1
# before it counts the service as started (and starts what depends on
# it); RELOADING=1 and STOPPING=1 tell it about HUP and TERM. Without
# NOTIFY_SOCKET every call is a no-op.

my $address;

# Takes NOTIFY_SOCKET out of the environment (the app, its workers and
# CGI scripts must not speak for the service) and keeps it.
sub init {
    my ($class) = @_;
    my $path = delete $ENV{NOTIFY_SOCKET} // return;
    # "@name" is a socket in the abstract namespace
    $path =~ s/\A@/\0/;
    $address = pack_sockaddr_un($path) if length $path;
}

sub enabled { defined $address }

# Sends one datagram of VAR=VALUE lines; failures are ignored (systemd
# gone, or not listening: the server serves all the same).
sub send {
    my ($class, @lines) = @_;
    return unless defined $address;
    socket(my $sock, AF_UNIX, SOCK_DGRAM, 0) or return;
    send($sock, join("\n", @lines) . "\n", 0, $address);
}

1;
__END__

=head1 NAME

Kamado::Notify - tells systemd (Type=notify) that kamado is ready,
reloading or stopping

=head1 SYNOPSIS

    Kamado::Notify->init;                        # once, at start
    Kamado::Notify->send('READY=1', 'STATUS=serving');

=head1 DESCRIPTION

The supervisor sends C<READY=1> once the first generation serves,
C<RELOADING=1> when HUP starts a new generation and C<READY=1> again once
it serves (or failed, the old one serving on), and C<STOPPING=1> on TERM,
QUIT or INT, each with a C<STATUS=> line that C<systemctl status> shows.

=cut
