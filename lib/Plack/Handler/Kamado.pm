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
    my $self = bless { options => $opt, cgi => \@cgi }, $class;
    _take_over_restarter($self) if $opt->{workers};
    return $self;
}

sub run {
    my ($self, $app) = @_;
    my @made;
    $app = Kamado::Runner::with_cgi($self->{cgi}, $self->{options}, $app, \@made) if $self->{cgi}->@*;
    my $status = eval { Kamado::Runner->serve($self->{options}, app => $app, cgi => \@made) } // die _kamado($@);
    return $status;
}

# plackup -r and -R. Plack::Runner makes the handler from
# load_server($runner, $loader) and then calls $loader->run($handler); its
# loader for -r/-R, Plack::Loader::Restarter, holds the paths to watch
# and the app's builder (code that loads the app afresh), and would run
# the whole server in a child, killed and started again on each change,
# refusing connections in between and serving nothing after a compile
# error. When the handler is made that way, the loader is given
# Kamado's run instead: the supervisor watches the paths (--reload) and
# each generation calls the builder, so a change is served like a HUP.
# Anything else (no such caller, other fields) leaves plackup's restarter
# as it is.
sub _take_over_restarter {
    my ($self) = @_;
    my $loader;
    {
        package DB;    # (caller from package DB sets @DB::args to the frame's arguments)
        for (my $i = 1; my @frame = caller($i); $i++) {
            next unless $frame[3] eq 'Plack::Runner::load_server';
            $loader = $DB::args[1];
            last;
        }
    }
    return unless ref $loader eq 'Plack::Loader::Restarter'
        && ref $loader->{watch} eq 'ARRAY' && ref $loader->{builder} eq 'CODE';
    $loader->{kamado} = $self;
    bless $loader, 'Plack::Handler::Kamado::Restarter';
}

# Kamado's reload, as plackup -r/-R's loader (see above).
sub run_reloading {
    my ($self, $builder, $watch) = @_;
    my @made;
    my $loader = sub {
        my $app = $builder->();
        return $self->{cgi}->@* ? Kamado::Runner::with_cgi($self->{cgi}, $self->{options}, $app, \@made) : $app;
    };
    my $status = eval {
        Kamado::Runner->serve({ $self->{options}->%*, reload => 1 }, loader => $loader, watch => $watch, cgi => \@made)
    } // die _kamado($@);
    return $status;
}

package Plack::Handler::Kamado::Restarter;
our @ISA = ('Plack::Loader::Restarter');

sub run {
    my ($self, $server) = @_;
    return $server->run_reloading($self->{builder}, $self->{watch}) if $server == $self->{kamado};
    return $self->SUPER::run($server);
}

package Plack::Handler::Kamado;

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
a one-line message naming it. A switch is spelt as plackup passes switches,
C<--enable-preload-cgi> (or C<--preload-cgi=1>): plackup takes the word
after any other C<--name> as its value.

C<--startup FILE> runs in each generation before the workers fork, as
with L<kamado>, but after the app is loaded: plackup loads the app before
it starts the server (except with C<-r> or C<-R>, below, where each
generation loads it after the startup file).

C<-r> and C<-R DIR,...> (development) use Kamado's own reload,
L<kamado/--reload>: plackup watches nothing itself; Kamado's supervisor
watches the app file's directory, its F<lib> and the C<-R> paths, and on
a change loads the app afresh in a new generation, as HUP does: no
connection is refused meanwhile, and when the new code does not compile
the error is logged and the old code keeps serving. (plackup's own
restarter, used with other servers, runs the server in a child process
that it kills and starts again.) This works by recognising plackup's
restarting loader when plackup makes the handler; were a future plackup
to work otherwise, its own restarter would run Kamado as it runs any
server. With C<--workers 0> plackup's restarter is used.

=head1 METHODS

=over

=item new(%ARGS)

The handler for plackup's arguments (option names with underscores or
dashes); dies with a one-line message naming a bad option.

=item run($APP)

Serves $APP, with the C<--cgi-bin> and C<--cgi-docroot> mounts beside it,
until the server stops; returns its exit status.

=item run_reloading($BUILDER, \@WATCH)

What plackup's C<-r>/C<-R> loader calls instead of its own restarter:
serves with Kamado's reload, each generation calling $BUILDER for the app,
the supervisor watching @WATCH.

=back

=cut
