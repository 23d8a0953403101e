package Plack::Handler::Kamado;
use 5.024;
use strict;
use warnings;

use Kamado::Options;
use Kamado::Runner;

# plackup -s Kamado: the same options as script/kamado, with underscores
# or dashes (--max-reqs-per-child, --keepalive-timeout ...).

sub new {
    my ($class, %args) = @_;
    return bless { options => Kamado::Options->from_handler_args(%args) }, $class;
}

sub run {
    my ($self, $app) = @_;
    return Kamado::Runner->serve($self->{options}, app => $app);
}

1;
__END__

=head1 NAME

Plack::Handler::Kamado - plackup -s Kamado

=head1 SYNOPSIS

    plackup -s Kamado --workers 8 --listen :8080 app.psgi

=head1 DESCRIPTION

Runs a PSGI application under L<Kamado>, taking the options of
L<kamado>. plackup loads the application before the server starts, so the
workers always share it (the C<--preload> behaviour).

=cut
