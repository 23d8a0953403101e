package Plack::Middleware::Kamado::DBI;
use 5.024;
use strict;
use warnings;

use parent 'Plack::Middleware';
use Plack::Util::Accessor qw(ping_interval);
use Kamado::DBI;

# Kamado::DBI for a PSGI app: the app's DBI->connect returns the worker's
# kept handle, and what a request left on it is undone after the
# response has been sent, by the server: a psgix.cleanup handler. On a
# server without psgix.cleanup, the handles are reset when the next
# request comes in, before the app sees it.

sub prepare_app {
    my ($self) = @_;
    Kamado::DBI->enable(ping_interval => $self->ping_interval);
}

sub call {
    my ($self, $env) = @_;
    Kamado::DBI::begin_request();
    if ($env->{'psgix.cleanup'}) {
        push $env->{'psgix.cleanup.handlers'}->@*, \&_end;
    } elsif (Kamado::DBI::in_use()) {
        Kamado::DBI::end_request();
    }
    return $self->app->($env);
}

sub _end { Kamado::DBI::cleanup() if Kamado::DBI::in_use() }

1;
__END__

=head1 NAME

Plack::Middleware::Kamado::DBI - DBI handles kept across requests, reset after each, for PSGI apps

=head1 SYNOPSIS

    use Plack::Builder;
    use DBI;

    builder {
        enable 'Kamado::DBI', ping_interval => 5;
        sub {
            my $env = shift;
            # connects once per worker; then the kept, reset handle
            my $dbh = DBI->connect('DBI:Pg:dbname=app', 'app', $password, { RaiseError => 1 });
            ...
        };
    };

    kamado app.psgi            # or: plackup -s Kamado app.psgi

=head1 DESCRIPTION

The cached-handle behaviour of L<Kamado::DBI> for a PSGI application:
once the middleware is in place, C<< DBI->connect >> with the same data
source, user, password and connection attributes returns the handle the
worker made before (pinged when idle for C<ping_interval> seconds,
default 5; replaced when the server closed it), C<disconnect> does
nothing, and after each request the handles the request used are reset:
statements finished, the transaction rolled back, attributes put back,
the server session reset (MariaDB/MySQL connection reset, PostgreSQL
C<DISCARD ALL>; other drivers, SQLite among them, are closed).
L<Kamado::DBI/What is kept and what is reset> lists exactly what.

The reset is the server's job, not the app's: it runs as a
C<psgix.cleanup> handler, after the response has been sent, so the
client never waits for it. Kamado (C<kamado>, C<plackup -s Kamado>)
supports C<psgix.cleanup>, as do Plack's FCGI and Apache2 handlers; on a
server that does not, the reset runs when the worker's next request
arrives, before the app is called.

A handle belongs to the process that made it: an app that connects
while it loads (before the workers fork) gets, in each worker, a
connection of that worker's own on its first C<< DBI->connect >>.

=head1 OPTIONS

=over

=item ping_interval

Seconds a kept handle may sit idle before it is pinged before reuse;
C<0> pings on every reuse (Apache::DBI's way). Default 5.

=back

=head1 SEE ALSO

L<Kamado::DBI>, L<Apache::DBI>, L<Plack::Builder>.

=cut
