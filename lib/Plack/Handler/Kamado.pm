package Plack::Handler::Kamado;
use 5.024;
use strict;
use warnings;

use Kamado::Options;
use Kamado::Runner;

# plackup -s Kamado: the same options as script/kamado, with underscores
# or dashes (--max-reqs-per-child, --keepalive-timeout ...). Every option
# is checked here, when plackup makes the handler, before anything is
# bound; errors are one line, as kamado's.

sub new {
    my ($class, @args) = @_;
    my ($opt, @cgi) = eval {
        my $opt = Kamado::Options->from_handler_args(@args);
        ($opt, Kamado::Runner::cgi_mounts($opt));
    } or die _kamado($@);
    return bless { options => $opt, cgi => \@cgi }, $class;
}

sub run {
    my ($self, $app) = @_;
    $app = Kamado::Runner::with_cgi($self->{cgi}, $self->{options}, $app) if $self->{cgi}->@*;
    my $status = eval { Kamado::Runner->serve($self->{options}, app => $app) } // die _kamado($@);
    return $status;
}

sub _kamado { $_[0] =~ /\Akamado: / ? $_[0] : "kamado: $_[0]" }

1;
__END__

=head1 NAME

Plack::Handler::Kamado - plackup -s Kamado

=head1 SYNOPSIS

    plackup -s Kamado --workers 8 --listen :8080 app.psgi
    plackup -s Kamado -E deployment --port 8080 --cgi-bin /srv/cgi-bin app.psgi

=head1 DESCRIPTION

Runs a PSGI application under L<Kamado>, taking the options of
L<kamado>. plackup loads the application before the server starts, so the
workers always share it (the C<--preload> behaviour).

Where to listen is plackup's: C<--listen> (repeatable; C<HOST:PORT>,
C<:PORT> or a unix socket path), C<--socket>, or C<--host> and C<--port>,
C<:5000> when none is given; sockets inherited from Server::Starter or
systemd win over all of them, as with L<kamado>. C<-E> sets C<PLACK_ENV>.
Every other option of L<kamado> passes through, checked against its range
before anything is bound (C<--workers 2>, C<--max-reqs-per-child 1000>,
C<--cgi-bin DIR>, repeatable ones repeated); a bad one stops plackup with
a one-line message naming it.

C<-r> and C<-R DIR> (plackup's restarter, for development) work as with
other servers: plackup runs the whole Kamado server in a child process
and, when a watched file changes, stops it with TERM (busy workers get
C<--graceful-timeout>) and starts a new one, which loads the app again.
Connections are refused for the moment in between; in production, a HUP
to kamado replaces the workers without that gap (L<kamado/SIGNALS>).

=cut
