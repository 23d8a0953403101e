package Kamado::Runner::Listeners;
use 5.024;
use strict;
use warnings;

use Kamado::Listener;

# From options to the sockets kamado listens on: the app's, and the
# status page's.

# The app's listeners, marked for --proxy-protocol. Inherited sockets win
# over --listen, as with Starman and Starlet.
sub app {
    my ($class, $opt) = @_;
    my @listeners = _inherited();
    @listeners = map { Kamado::Listener->bind($_) } _specs($opt) unless @listeners;
    Kamado::Listener->mark_proxy_protocol($opt->{proxy_protocol}, @listeners) if $opt->{proxy_protocol};
    return @listeners;
}

sub _inherited {
    return $ENV{SERVER_STARTER_PORT}
        ? Kamado::Listener->from_server_starter
        : Kamado::Listener->from_systemd;
}

sub _specs {
    my ($opt) = @_;
    my @specs = ($opt->{listen} // [])->@*;
    if (defined $opt->{socket}) {
        push @specs, $opt->{socket};
    }
    if (defined $opt->{port} || !@specs) {
        my $host = $opt->{host} // '';
        push @specs, ($host =~ /:/ ? "[$host]" : $host) . ':' . ($opt->{port} // 5000);
    }
    return @specs;
}

# --status-listen: HOST:PORT, a unix socket path, or a port alone (then
# on the loopback address, as ":PORT" too: the page shows request lines,
# so listening beyond the machine is asked for by name); undef without it.
sub status {
    my ($class, $opt) = @_;
    my $spec = $opt->{status_listen} // return undef;
    die "kamado: --status-listen needs --workers 1 or more (with --workers 0 there is no supervisor to answer it)\n"
        if $opt->{workers} == 0;
    $spec = "127.0.0.1:$1" if $spec =~ /\A:?(\d+)\z/;
    die "kamado: --status-listen $opt->{status_listen}: the port must be from 1 to 65535\n"
        if $spec !~ m{/} && $spec =~ /:(\d+)\z/ && ($1 < 1 || $1 > 65535);
    my $listener = eval { Kamado::Listener->bind($spec) };
    die "kamado: --status-listen $opt->{status_listen}: " . ($@ =~ s/\s+\z//r) . "\n" unless $listener;
    return $listener;
}

1;
__END__

=head1 NAME

Kamado::Runner::Listeners - the listening sockets the options ask for

=head1 SYNOPSIS

    my @listeners = Kamado::Runner::Listeners->app($opt);
    my $status    = Kamado::Runner::Listeners->status($opt);   # or undef

=head1 DESCRIPTION

C<app> returns the sockets the app is served on: those inherited from
L<Server::Starter> (C<SERVER_STARTER_PORT>) or systemd (C<LISTEN_FDS>),
else one bound for each B<--listen> and B<--socket>, and for
B<--host>/B<--port> (port 5000 when nothing else is given); with
B<--proxy-protocol>, the ones it names expect the PROXY protocol header.

C<status> binds B<--status-listen>: a port alone listens on 127.0.0.1.
Both die with a one-line C<kamado: ...> message naming the option
when a socket cannot be had.

=cut
